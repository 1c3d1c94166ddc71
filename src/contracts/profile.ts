import { z } from 'zod';

/** Where a personalization signal of the profile came from (PersonalPlan §3.3, C(I_p)). */
export const SIGNAL_SOURCES = ['tag', 'skill', 'signal', 'text'] as const;
export type SignalSource = (typeof SIGNAL_SOURCES)[number];

const list = z.array(z.string().max(1000)).max(1000);
const stringList = z.union([list, z.string().max(20000)]);
// null is absent: a Hugging Face `datasets` struct column gives every missing key as None. (No transform
// here: it would split the OpenAPI input schema from its example.)
const absentIfNull = <T extends z.ZodType>(s: T) => s.nullish();

const ProfileObjectSchema = z
  .looseObject({
    about_me: absentIfNull(z.string().max(20000)),
    tags: absentIfNull(stringList).describe('List, or a comma/semicolon-separated string'),
    skills: absentIfNull(stringList).describe('List, or a comma/semicolon-separated string'),
    experience: absentIfNull(z.string().max(20000)),
    goals: absentIfNull(z.union([z.string().max(20000), list])),
    signals: absentIfNull(list).describe('Explicit personalization signals'),
  })
  .meta({ id: 'LearnerProfileObject' });
export type ProfileObject = z.infer<typeof ProfileObjectSchema>;

export const ProfileSchema = z
  .union([z.string().max(65536), ProfileObjectSchema, list.describe('A list of tags')], {
    error: 'expected free text, a list of tags, or a profile object { about_me, tags, skills, experience, goals, signals }',
  })
  .describe('Learner profile: an object with about_me, tags, skills, experience, goals, signals (null = absent); a list of tags; or free text')
  .meta({ id: 'LearnerProfile' });

export type Profile = z.infer<typeof ProfileSchema>;
