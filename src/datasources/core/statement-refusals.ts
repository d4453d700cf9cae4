import { DomainError } from '../../common/domain-error';
import { DatasourceErrors } from '../datasources.errors';

/** Longest database message a statement refusal quotes, in characters. */
const MESSAGE_MAX = 300;

/**
 * The refusal `Dialect.describeStatement` answers for an error of the database (issue 26: "the
 * database's message minus any SQL text"): a `DomainError` (TIMEOUT, DATASOURCE_UNAVAILABLE, a
 * READ_ONLY refusal) as it came; an error `isRefusal` recognises as the database refusing the
 * statement, `DatasourceErrors.invalidStatement` with its first line, `strip` applied (each
 * dialect removes the SQL text its database quotes) and at most {@link MESSAGE_MAX} characters;
 * anything else as it came (an internal error, never shown).
 */
export function statementRefusal(
  error: unknown,
  isRefusal: (error: unknown) => boolean,
  strip: (message: string) => string = (m) => m,
): unknown {
  if (error instanceof DomainError || !isRefusal(error)) return error;
  const raw = String((error as { message?: unknown }).message ?? '');
  let message = strip(raw.split('\n')[0]).trim();
  if (message.length > MESSAGE_MAX) message = `${message.slice(0, MESSAGE_MAX - 1)}…`;
  return DatasourceErrors.invalidStatement(message || 'no reason given');
}
