import type { Attributes } from './access-types';

/**
 * An app user's roles and attributes as the forms write them: roles comma-separated
 * (`sales, support`), attributes one `name = value` a line, where `true`, `false`, `null` and
 * numbers are taken as such and anything else as text (`region = EU`, `level = 3`).
 */

/** Roles typed comma-separated, trimmed, empty ones dropped. */
export function parseRoles(text: string): string[] {
  return text
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
}

/**
 * Attribute lines as attributes.
 * @throws Error naming the first line that is not `name = value`.
 */
export function parseAttributes(text: string): Attributes {
  const out: Attributes = {};
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const at = line.indexOf('=');
    const name = at < 0 ? '' : line.slice(0, at).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(
        `Attributes, line ${i + 1}: write name = value, the name a letter or _ then letters, digits or _`,
      );
    const raw = line.slice(at + 1).trim();
    if (raw === 'true' || raw === 'false') out[name] = raw === 'true';
    else if (raw === 'null') out[name] = null;
    else if (raw !== '' && Number.isFinite(Number(raw))) out[name] = Number(raw);
    else out[name] = raw;
  });
  return out;
}

/** Attributes as the form's lines. */
export function attributesText(attributes: Attributes): string {
  return Object.entries(attributes)
    .map(([name, value]) => `${name} = ${value === null ? 'null' : String(value)}`)
    .join('\n');
}

/** Attributes in words for a table cell: `region: EU, level: 3`, or `none`. */
export function attributesInWords(attributes: Attributes): string {
  const entries = Object.entries(attributes);
  return entries.length
    ? entries
        .map(([name, value]) => `${name}: ${value === null ? 'empty' : String(value)}`)
        .join(', ')
    : 'none';
}
