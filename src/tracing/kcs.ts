// Knowledge components of a coding task (Traver §3.1): each reference dependency and each reference
// solution step. Accepts lists, or the Coding-Tutor data set's text fields as they are: `dependency_all`
// ("# Intra-class Dependency:\npkg.Class.attr\n\n# Intra-file Dependency:\npkg.fn") and `reference_steps`
// ("1. Define …\n2. Establish …").

type KcKind = 'dependency' | 'step';

export interface KnowledgeComponent {
  id: string;
  text: string;
  kind: KcKind;
}

export interface KcTask {
  dependencies?: string | string[];
  solution_steps?: string | string[];
}

/** Dependency paths: one per non-empty line that is not a "# …" heading. */
export function dependencyPaths(field: string | string[]): string[] {
  const lines = typeof field === 'string' ? field.split('\n') : field;
  return lines.map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

/** Solution steps: numbered lines ("1. …", "2) …") start a step; other lines continue the previous one. */
export function solutionSteps(field: string | string[]): string[] {
  if (Array.isArray(field)) return field.map((s) => s.trim()).filter(Boolean);
  const steps: string[] = [];
  for (const raw of field.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const numbered = /^\d+[.)]\s+(.*)$/.exec(line);
    if (numbered || steps.length === 0) steps.push(numbered ? numbered[1]! : line);
    else steps[steps.length - 1] += ` ${line}`;
  }
  return steps;
}

export function kcsOfTask(task: KcTask): KnowledgeComponent[] {
  const deps = task.dependencies === undefined ? [] : dependencyPaths(task.dependencies);
  const steps = task.solution_steps === undefined ? [] : solutionSteps(task.solution_steps);
  return [
    ...[...new Set(deps)].map((path) => ({ id: `dep:${path}`, text: path, kind: 'dependency' as const })),
    ...steps.map((text, i) => ({ id: `step:${i + 1}`, text, kind: 'step' as const })),
  ];
}
