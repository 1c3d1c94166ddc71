import type { Phase } from '../../contracts/palette.js';

// Phase dictionaries for Merrill's First Principles of Instruction (PersonalPlan §3.3, R_ped), plus the two
// optional phases the service labels but does not score. Each cue is a regular-expression fragment matched
// case-insensitively at a word start, so stems accept paraphrases ("demonstrat" → demonstrate,
// demonstration). Versioned: any change bumps PHASES_VERSION, reported with every score.
export const PHASES_VERSION = 'merrill-phases@1';

export const SCORED_PHASES = ['activation', 'demonstration', 'application', 'integration'] as const satisfies readonly Phase[];

export const PHASE_CUES: Record<Phase, readonly string[]> = {
  activation: [
    'prior knowledge', 'existing knowledge', 'background knowledge', 'current (?:understanding|knowledge|level|skills?)',
    'what (?:the (?:learner|student|user)|you) (?:already )?knows?', 'already know', 'familiar(?:ity)? with',
    'assess(?:es|ing)? (?:the )?(?:learner|student|user|their|your|prior|current|baseline)', 'diagnos', 'pre-?(?:test|assessment|quiz)',
    'baseline', 'gauge', 'probe', 'probing', 'elicit', 'recall', 'warm-?up', 'activate', 'self-?assess',
    'ask (?:the )?(?:learner|student|user)', 'experience (?:level )?with', 'skill level', 'misconception',
  ],
  demonstration: [
    'demonstrat', 'show(?:s|ing|case)?', 'illustrat', 'explain', 'explanation', 'walk(?:s|ing)? (?:the (?:learner|student|user) )?through',
    'walkthrough', 'worked example', 'examples?', 'model(?:s|ing)? (?:the|how)', 'retriev', 'look(?:s|ing)? up',
    'search(?:es|ing)? (?:for|the)', 'documentation', 'docs', 'reference', 'tutorial', 'present', 'introduc', 'describ',
    'visuali[sz]', 'diagram', 'analog', 'step-by-step',
  ],
  application: [
    'apply', 'applies', 'applying', 'application of', 'implement', 'practi[cs]e', 'exercis', 'hands-on', 'write (?:the |a |an |your |their )?(?:code|function|program|script|query|class|tests?)',
    'writ(?:e|es|ing) code', 'code (?:the|a|an|it)', 'build', 'construct', 'solve', 'try', 'tries', 'attempt', 'refactor', 'modify',
    'complete (?:the|a|an) (?:task|exercise|challenge|function)', 'mini-?project', 'coding challenge',
  ],
  integration: [
    'validat', 'verif', 'check', 'test(?:s|ing)? (?:the|their|your|it|that|whether|if|a)', 'run (?:the )?tests', 'unit tests?',
    'review', 'reflect', 'evaluat', 'assess(?:es|ing)? (?:the )?(?:solution|result|code|output|implementation|work|understanding)',
    'debug', 'confirm', 'ensure', 'troubleshoot', 'integrat', 'transfer', 'real-world', 'own project', 'extend',
  ],
  feedback: ['feedback', 'hint', 'correct(?:ion|ive)', 'critique', 'suggest(?:ion)?s? (?:for )?improvement', 'point out', 'guidance on errors', 'comment on'],
  consolidate: ['summar', 'recap', 'consolidat', 'key takeaways?', 'takeaways', 'next steps', 'further (?:reading|practice|learning)', 'cheat ?sheet', 'reinforc', 'wrap(?:s|ping)? up', 'spaced repetition', 'review sheet'],
};
