// WikiHowAgent's eight LLM-judge criteria, each scored 1–5 in its own call. The anchors are ours, written
// to pin down the ends and the middle of each scale.
export const CRITERIA = ['Clarity', 'Truthfulness', 'Engagement', 'Coherence', 'Depth', 'Relevance', 'Progress', 'Naturalness'] as const;
export type Criterion = (typeof CRITERIA)[number];

const RUBRIC: Record<Criterion, { question: string; anchors: Record<1 | 3 | 5, string> }> = {
  Clarity: {
    question: "How clear and easy to follow are the teacher's explanations?",
    anchors: {
      1: 'confusing, ambiguous or jargon-laden',
      3: 'mostly understandable with some unclear passages',
      5: 'consistently clear, well structured and easy to follow',
    },
  },
  Truthfulness: {
    question: 'How accurate is what the teacher says, measured against the tutorial?',
    anchors: {
      1: 'contains clear factual errors or contradicts the tutorial',
      3: 'mostly accurate with minor slips',
      5: 'fully accurate and faithful to the tutorial',
    },
  },
  Engagement: {
    question: 'How well does the teacher keep the learner involved?',
    anchors: {
      1: 'monologue; ignores the learner',
      3: 'some questions or checks, unevenly',
      5: 'consistently invites participation and responds to the learner',
    },
  },
  Coherence: {
    question: 'How logically connected is the conversation from turn to turn?',
    anchors: {
      1: 'disjointed; turns do not follow from each other',
      3: 'generally connected with some jumps',
      5: 'every turn follows naturally from the previous ones',
    },
  },
  Depth: {
    question: 'How thoroughly does the teacher cover the material?',
    anchors: {
      1: 'superficial; key points missing',
      3: 'covers the main points with little elaboration',
      5: 'covers the steps thoroughly, with reasons and examples',
    },
  },
  Relevance: {
    question: "How relevant is the teacher's content to the tutorial and the learner's questions?",
    anchors: { 1: 'mostly off-topic', 3: 'on topic with some digressions', 5: 'everything serves the tutorial and the learner' },
  },
  Progress: {
    question: 'How well does the conversation advance through the tutorial toward completion?',
    anchors: { 1: 'stalls or loops without advancing', 3: 'advances unevenly', 5: 'moves steadily through the steps to the end' },
  },
  Naturalness: {
    question: 'How natural and human-like does the dialogue read?',
    anchors: {
      1: 'robotic, repetitive or formulaic',
      3: 'somewhat natural with stiff passages',
      5: 'reads like a natural conversation between a teacher and a learner',
    },
  },
};

export function judgePrompt(criterion: Criterion, conversation: string, reference: string | undefined): { system: string; user: string } {
  const r = RUBRIC[criterion];
  return {
    system: 'You evaluate tutoring conversations. Answer with a single integer from 1 to 5 on the first line, then at most one sentence of justification.',
    user: [
      `Criterion: ${criterion}. ${r.question}`,
      `1 = ${r.anchors[1]}; 3 = ${r.anchors[3]}; 5 = ${r.anchors[5]}. Use 2 and 4 for cases in between.`,
      reference ? `Tutorial:\n${reference}` : '',
      `Conversation:\n${conversation}`,
      `Score (1-5) for ${criterion}:`,
    ]
      .filter(Boolean)
      .join('\n\n'),
  };
}

/** The first integer 1–5 standing alone in the reply ("4", "Score: 4/5", "**4**"), or null. */
export function parseScore(reply: string): number | null {
  const m = /(?<![\d.])([1-5])(?!\d|\.\d)/.exec(reply);
  return m ? Number(m[1]) : null;
}
