/**
 * Reads the README's examples as the README test runs them (issue 13, item 7): every ```sh block
 * is a piece of a shell session; a line `# <answer>` right after a command is what that command
 * prints (`…` stands for any text); a ```json block right after a ```sh block is what its last
 * command prints, compared as JSON. A block that starts the service (`… npm start`) begins a new
 * session against a fresh service.
 */

/** A fenced block of the README. */
export interface FencedBlock {
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  lines: string[];
}

/** Commands run together, and what the README says they print (empty: not checked). */
export interface Chunk {
  /** 1-based README line of the chunk's first command. */
  line: number;
  script: string;
  expected: string[];
  /** A ```json answer that follows the block, for the block's last chunk. */
  expectedJson?: unknown;
}

/** Every fenced block, in README order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith('```')) body.push(lines[j++]);
    blocks.push({ lang: open[1], line: i + 1, lines: body });
    i = j;
  }
  return blocks;
}

/**
 * Splits a ```sh block into chunks, each ending after its `# <answer>` lines; a heredoc's body
 * (`<<'EOF'` … `EOF`) always stays inside its command.
 */
export function chunksOf(block: FencedBlock): Chunk[] {
  const chunks: Chunk[] = [];
  let script: string[] = [];
  let expected: string[] = [];
  let start = block.line + 1;
  let heredoc: string | null = null;
  const flush = (nextLine: number) => {
    if (script.length || expected.length) {
      chunks.push({ line: start, script: script.join('\n'), expected });
    }
    script = [];
    expected = [];
    start = nextLine;
  };
  block.lines.forEach((text, index) => {
    const line = block.line + 1 + index;
    if (heredoc !== null) {
      script.push(text);
      if (text.trim() === heredoc) heredoc = null;
      return;
    }
    if (text.startsWith('# ') || text === '#') {
      expected.push(text.slice(2));
      return;
    }
    if (expected.length) flush(line);
    if (!script.length) start = line;
    script.push(text);
    const tag = /<<-?\s*'?(\w+)'?/.exec(text);
    if (tag) heredoc = tag[1];
  });
  flush(0);
  return chunks;
}

/** Text with blank lines and line-end spaces dropped: the README's layout may differ there. */
const compact = (text: string) =>
  text
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();

/**
 * Whether a parsed answer matches a JSON block of the README: the same JSON, except that a string
 * `"…"` in the block stands for any value (e.g. the time of `extensions.cost.resetAt`).
 */
export function matchesJson(actual: unknown, expected: unknown): boolean {
  if (expected === '…') return true;
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, i) => matchesJson(actual[i], item))
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const keys = Object.keys(expected);
    return (
      JSON.stringify(Object.keys(actual)) === JSON.stringify(keys) &&
      keys.every((k) =>
        matchesJson(
          (actual as Record<string, unknown>)[k],
          (expected as Record<string, unknown>)[k],
        ),
      )
    );
  }
  return actual === expected;
}

/** Whether an actual output matches the README's answer lines (`…` = any text, also across lines). */
export function matchesAnswer(actual: string, expected: string[]): boolean {
  const pattern = compact(expected.join('\n'))
    .split('…')
    .map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^\\s*${pattern}\\s*$`).test(compact(actual));
}
