import { z } from 'zod';

const stringList = z.union([z.array(z.string().max(1000)).max(1000), z.string().max(20000)]);

export const ProfileObjectSchema = z
  .looseObject({
    about_me: z.string().max(20000).optional(),
    tags: stringList.optional().describe('List, or a comma/semicolon-separated string'),
    skills: stringList.optional().describe('List, or a comma/semicolon-separated string'),
    experience: z.string().max(20000).optional(),
    goals: z.union([z.string().max(20000), z.array(z.string().max(1000)).max(1000)]).optional(),
    signals: z.array(z.string().max(1000)).max(1000).optional().describe('Explicit personalization signals'),
  })
  .meta({ id: 'LearnerProfileObject' });

export const ProfileSchema = z
  .union([z.string().max(65536), ProfileObjectSchema], { error: 'expected free text or a profile object { about_me, tags, skills, experience, goals, signals }' })
  .describe('Learner profile: an object with about_me, tags, skills, experience, goals, signals; or free text')
  .meta({ id: 'LearnerProfile' });

export type Profile = z.infer<typeof ProfileSchema>;
export type ProfileObject = z.infer<typeof ProfileObjectSchema>;
