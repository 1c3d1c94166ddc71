import type { Phase, Tool } from '../contracts/palette.js';

// Default palette: eight CrewAI-style tools for programming tutoring. The first four are the ones the
// PersonalPlan paper names; descriptions are ours.
const DEFAULT_PALETTE: readonly Tool[] = [
  { name: 'CodeInterpreterTool', description: 'Runs a code snippet in a sandbox and returns its output or error.' },
  { name: 'CodeDocsSearchTool', description: 'Searches official library and language documentation.', phase: 'demonstration' },
  { name: 'FirecrawlSearchTool', description: 'Searches the web and returns page content as markdown.', phase: 'demonstration' },
  { name: 'FileWriterTool', description: 'Writes text, code or notes to a file in the learner workspace.' },
  { name: 'FileReadTool', description: 'Reads a file from the learner workspace.' },
  { name: 'DirectoryReadTool', description: 'Lists the files of a project directory.' },
  { name: 'GithubSearchTool', description: 'Searches code, issues and examples in GitHub repositories.', phase: 'demonstration' },
  { name: 'YoutubeVideoSearchTool', description: 'Finds tutorial videos on a topic and searches their transcripts.', phase: 'demonstration' },
];

export interface ResolvedPalette {
  source: 'default' | 'request';
  tools: ReadonlyMap<string, Tool>;
}

export const DEFAULT_RESOLVED: ResolvedPalette = {
  source: 'default',
  tools: new Map(DEFAULT_PALETTE.map((t) => [t.name, t])),
};

export function resolvePalette(palette: ReadonlyArray<string | Tool> | undefined): ResolvedPalette {
  if (!palette) return DEFAULT_RESOLVED;
  const tools = new Map<string, Tool>();
  for (const t of palette) {
    const tool = typeof t === 'string' ? { name: t } : t;
    tools.set(tool.name, tool);
  }
  return { source: 'request', tools };
}

export function toolPhase(palette: ResolvedPalette, tool: string | null | undefined): Phase | undefined {
  return tool ? palette.tools.get(tool)?.phase : undefined;
}
