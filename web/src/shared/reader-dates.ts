/**
 * Dates and times for the reader: in the browser's own language and time zone (`Intl`, with no
 * locale given), as the product asks of screens (issue 27 item 8).
 */
const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An ISO-8601 instant for people, or `otherwise` when there is none or it is not a date. */
export function readerDateTime(iso: string | null | undefined, otherwise = '—'): string {
  if (!iso) return otherwise;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? otherwise : format.format(date);
}
