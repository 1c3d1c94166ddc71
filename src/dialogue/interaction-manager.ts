// WikiHowAgent's interaction manager (Algorithm 1) as a pure state machine: the teacher teaches the
// tutorial step by step, the learner answers; a learner who asks or is confused gets a clarification on
// the same step, otherwise the teacher moves on; the conversation ends when the tutorial is done, when
// someone says the `finished` token, or at the interaction limit.

type Node = 'teacher' | 'learner' | 'end';

export interface DialogueState {
  current_step: number;
  steps_total: number;
  needs_clarification: boolean;
  finished: boolean;
  message_count: number;
  max_interactions: number;
}

export interface Transition {
  next: Node;
  state: DialogueState;
  /** Why the machine went where it did. */
  reason: string;
}

const CONFUSED =
  /\?|\b(i\s+(do\s*n[o']?t|dont)\s+(understand|get|know)|confus(ed|ing)|not\s+sure|unclear|what\s+do\s+you\s+mean|can\s+you\s+(explain|clarify|repeat))/i;
const FINISHED = /\bfinished\b/i;

export function nextNode(state: DialogueState, last: { role: 'teacher' | 'learner'; text: string }): Transition {
  const s: DialogueState = { ...state, message_count: state.message_count + 1 };
  if (state.finished) return { next: 'end', state: { ...s, message_count: state.message_count }, reason: 'already finished' };
  if (FINISHED.test(last.text)) return { next: 'end', state: { ...s, finished: true }, reason: `the ${last.role} said the finished token` };
  if (s.message_count >= s.max_interactions)
    return { next: 'end', state: { ...s, finished: true }, reason: `reached max_interactions (${s.max_interactions})` };
  if (last.role === 'teacher' && s.current_step >= s.steps_total) {
    return { next: 'end', state: { ...s, finished: true }, reason: 'the teacher concluded the tutorial' };
  }
  if (last.role === 'teacher') {
    // The teacher has just taught (or clarified) the current step: the learner answers.
    return {
      next: 'learner',
      state: s,
      reason: s.needs_clarification ? 'the teacher clarified; the learner answers' : `the teacher taught step ${s.current_step + 1}; the learner answers`,
    };
  }
  if (CONFUSED.test(last.text)) {
    return { next: 'teacher', state: { ...s, needs_clarification: true }, reason: `the learner asked or is confused: clarify step ${s.current_step + 1}` };
  }
  const step = s.current_step + 1;
  if (step >= s.steps_total) {
    // Past the last step the teacher closes the conversation (and is expected to say "finished").
    return { next: 'teacher', state: { ...s, current_step: s.steps_total, needs_clarification: false }, reason: 'the tutorial is done: the teacher concludes' };
  }
  return { next: 'teacher', state: { ...s, current_step: step, needs_clarification: false }, reason: `the learner followed: on to step ${step + 1}` };
}
