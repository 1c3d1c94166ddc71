import { PHASES_VERSION } from '../rewards/pedagogy/phases.js';
import { LEXICON_VERSION } from '../rewards/personalization/lexicon.js';
import { GAMING_VERSION } from '../rewards/gaming/thresholds.js';
import { MEANING_VERSION } from '../rewards/meaning/thresholds.js';

// Bumped whenever a reward formula or default changes, so a trainer can tell two reward functions apart.
export const SCORER_VERSION = 'personalplan-rewards@3';

export const VERSIONS = { service: SCORER_VERSION, lexicon: LEXICON_VERSION, phases: PHASES_VERSION, gaming: GAMING_VERSION, meaning: MEANING_VERSION };
