// Python, JavaScript, TypeScript and C read with tree-sitter's own grammars (web-tree-sitter: the WebAssembly
// build, so no native module per platform, and each grammar package ships its .wasm): they read a student's
// half-written or broken code token by token where a strict parser (acorn, a compiler) gives up at the first
// error, and they tell a name the code binds from one it only uses. SQL, for which no maintained tree-sitter
// grammar ships a .wasm, is read by sql-tokens.ts.
import { createRequire } from 'node:module';
import { Language, type Node, Parser } from 'web-tree-sitter';
import { sqlTokens } from './sql-tokens.js';
import type { CodeLanguage, CodeToken, CodeTokenizer } from './tokens.js';

const GRAMMARS = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  c: 'tree-sitter-c/tree-sitter-c.wasm',
} as const;
type TreeLanguage = keyof typeof GRAMMARS;

// A string is one token, whatever its parts (quotes, escapes, interpolations).
const STRINGS = new Set(['string', 'template_string', 'string_literal', 'char_literal', 'raw_string_literal', 'concatenated_string']);
const NUMBERS = new Set(['integer', 'float', 'number', 'number_literal']);
// Where a child name is bound, whatever its field: parameter lists and destructuring patterns.
const BINDING_PARENTS = new Set([
  'parameters',
  'lambda_parameters',
  'formal_parameters',
  'pattern_list',
  'tuple_pattern',
  'list_pattern',
  'list_splat_pattern',
  'dictionary_splat_pattern',
  'array_pattern',
  'object_pattern',
  'rest_pattern',
]);
// Where the child in this field is bound: a definition's name, an assignment's or a loop's target, a C declarator.
const BINDING_FIELDS: Record<string, ReadonlySet<string>> = {
  name: new Set([
    'function_definition',
    'class_definition',
    'default_parameter',
    'typed_parameter',
    'typed_default_parameter',
    'function_declaration',
    'class_declaration',
    'variable_declarator',
    'required_parameter',
    'optional_parameter',
  ]),
  left: new Set(['assignment', 'for_statement', 'for_in_clause', 'for_in_statement', 'assignment_expression']),
  parameter: new Set(['arrow_function']),
  pattern: new Set(['required_parameter', 'optional_parameter']),
  declarator: new Set(['function_declarator', 'parameter_declaration', 'pointer_declarator', 'init_declarator', 'array_declarator', 'declaration']),
};

function isBound(node: Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  if (BINDING_PARENTS.has(parent.type)) return true;
  for (const [field, parents] of Object.entries(BINDING_FIELDS)) {
    if (parents.has(parent.type) && parent.childForFieldName(field)?.id === node.id) return true;
  }
  return false;
}

class TreeSitterTokenizer implements CodeTokenizer {
  constructor(private readonly parsers: Record<TreeLanguage, Parser>) {}

  tokens(code: string, language: CodeLanguage): { tokens: CodeToken[]; errors: number } {
    if (language === 'sql') return sqlTokens(code);
    const tree = this.parsers[language].parse(code);
    if (!tree) return { tokens: [], errors: 1 };
    const tokens: CodeToken[] = [];
    let errors = 0;
    // Offsets from tree-sitter are UTF-8 bytes in its own encoding; the node's text is exact, so each token is found in the code from the last one on.
    let at = 0;
    const emit = (n: Node, kind: CodeToken['kind'], bound: boolean) => {
      const text = n.text;
      const start = code.indexOf(text, at);
      const from = start < 0 ? at : start;
      at = from + text.length;
      tokens.push({ text, kind, bound, start: from, end: from + text.length, line: n.startPosition.row + 1 });
    };
    const walk = (n: Node) => {
      if (n.type === 'ERROR' || n.isMissing) errors++;
      if (n.type === 'comment') return;
      if (STRINGS.has(n.type)) return emit(n, 'literal', false);
      if (n.childCount === 0) {
        if (n.text.length === 0) return;
        if (NUMBERS.has(n.type)) return emit(n, 'literal', false);
        if (n.type.endsWith('identifier') || n.type === 'shorthand_property_identifier_pattern') return emit(n, 'name', isBound(n));
        return emit(n, 'other', false);
      }
      for (const c of n.children) if (c) walk(c);
    };
    walk(tree.rootNode);
    tree.delete();
    return { tokens, errors };
  }
}

let loading: Promise<CodeTokenizer> | undefined;

/** The tokenizer of this thread: the grammars loaded once, on first use. */
export function codeTokenizer(): Promise<CodeTokenizer> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const entries = await Promise.all(
      (Object.keys(GRAMMARS) as TreeLanguage[]).map(async (name) => {
        const parser = new Parser();
        parser.setLanguage(await Language.load(require.resolve(GRAMMARS[name])));
        return [name, parser] as const;
      }),
    );
    return new TreeSitterTokenizer(Object.fromEntries(entries) as Record<TreeLanguage, Parser>);
  })();
  return loading;
}
