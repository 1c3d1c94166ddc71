import type { Profile, SignalSource } from '../../contracts/profile.js';
import type { ProfileSignal } from '../../contracts/results.js';
import { LEXICON, type LexiconEntry } from './lexicon.js';
import { normalizePhrase, PhraseMatcher, rememberPhrases } from './matcher.js';

// C(I_p), the profile's personalization signals (PersonalPlan §3.3): tags, skills, explicit signals, and the
// lexicon's technology/domain terms found in the profile's free text. One signal per lexicon entry or
// per distinct unknown phrase, whatever number of places named it.

const byTextAlias = new Map<string, LexiconEntry>();
const byTagKey = new Map<string, LexiconEntry>();
const phrasesOf = new Map<LexiconEntry, string[]>();
for (const entry of LEXICON) {
  phrasesOf.set(entry, entry.aliases.map(normalizePhrase));
  for (const a of entry.aliases) byTextAlias.set(normalizePhrase(a), entry);
  for (const k of [entry.id, entry.label, ...entry.aliases, ...(entry.tagOnly ?? [])]) byTagKey.set(normalizePhrase(k), entry);
}
rememberPhrases(byTextAlias.keys());
const lexiconText = new PhraseMatcher(byTextAlias.keys());

/** Tags and skills arrive as lists or strings: "python, django" / "python django" (Stack Overflow style). */
export function items(value: string | readonly string[] | null | undefined, splitOnSpace: boolean): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return [...value];
  if (/[,;|\n]/.test(value)) return value.split(/[,;|\n]/);
  return splitOnSpace ? value.split(/\s+/) : [value];
}

export function profileSignals(profile: Profile): ProfileSignal[] {
  const out = new Map<string, ProfileSignal>();
  const add = (key: string, label: string, phrases: string[], source: SignalSource) => {
    const existing = out.get(key);
    if (existing) {
      if (!existing.sources.includes(source)) existing.sources.push(source);
    } else out.set(key, { id: key, label, sources: [source], phrases });
  };
  const addNamed = (name: string, source: SignalSource) => {
    const key = normalizePhrase(name);
    if (key.length === 0) return;
    const entry = byTagKey.get(key);
    if (entry) add(entry.id, entry.label, phrasesOf.get(entry)!, source);
    else add(key, name.trim(), [key], source);
  };
  const addText = (text: string | readonly string[] | null | undefined) => {
    if (text === undefined || text === null) return;
    for (const phrase of lexiconText.scan((typeof text === 'string' ? text : text.join('\n')).toLowerCase())) {
      const entry = byTextAlias.get(phrase)!;
      add(entry.id, entry.label, phrasesOf.get(entry)!, 'text');
    }
  };

  if (typeof profile === 'string') {
    addText(profile);
  } else if (Array.isArray(profile)) {
    for (const t of profile) addNamed(t, 'tag'); // a bare list is the tags
  } else {
    for (const t of items(profile.tags, true)) addNamed(t, 'tag');
    for (const s of items(profile.skills, false)) addNamed(s, 'skill');
    for (const s of profile.signals ?? []) addNamed(s, 'signal');
    addText(profile.about_me);
    addText(profile.experience);
    addText(profile.goals);
  }
  return [...out.values()];
}
