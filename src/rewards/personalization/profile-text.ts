import type { Profile } from '../../contracts/profile.js';
import { items } from './signals.js';

// A profile's text and its named items, as the readers of plan text (gaming signals, meaning) take them.

/** Every free-text field and list of a profile, one per line. */
export function profileText(profile: Profile | undefined): string {
  if (profile === undefined) return '';
  if (typeof profile === 'string') return profile;
  if (Array.isArray(profile)) return profile.join(', ');
  const list = (v: string | readonly string[] | null | undefined) => (v == null ? '' : typeof v === 'string' ? v : v.join(', '));
  return [profile.about_me, list(profile.tags), list(profile.skills), profile.experience, list(profile.goals), list(profile.signals)]
    .map((v) => v ?? '')
    .join('\n');
}

/** The named items of a profile: its tags, skills and signals (a bare list is the tags). */
export function profileItems(profile: Profile | undefined): string[] {
  if (profile === undefined || typeof profile === 'string') return [];
  if (Array.isArray(profile)) return [...profile];
  return [...items(profile.tags, true), ...items(profile.skills, false), ...(profile.signals ?? [])];
}
