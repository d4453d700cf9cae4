import { scopeCoversApi, scopeForApp } from '../../api-keys/api-keys.service';
import { ApiKeyErrors } from '../../api-keys/api-keys.errors';
import { DomainError, ErrorCode } from '../../common/domain-error';
import type { Caller } from '../gateway-context';
import type { RootFieldInfo } from '../schema-builder';

/**
 * Root fields that read no table and so need no API behind them: introspection, and the
 * placeholder field of a schema with no operations (it always answers null).
 */
const FIELDS_WITHOUT_API = new Set(['__schema', '__type', '__typename', '_noOperations']);

/**
 * The refusal of a root field the caller's schema does not hold. Validation lets such a field
 * through only under a root type that schema lacks (graphql-js 16 checks fields against the
 * operation's root type only when the schema has one): a `mutation` sent by a caller who sees no
 * write operation. What the caller lacks is answered as for a known operation outside its view
 * (CONTRACT.md §6): anonymous, a key (401 `Invalid API key`); a key, its scope (403 `API key not
 * authorised for this endpoint`). A builder or an app user sees every operation a key could
 * unlock, so for them nothing serves it (403).
 */
function unknownFieldRefusal(caller: Caller, name: string): DomainError {
  switch (caller.kind) {
    case 'anonymous':
      return ApiKeyErrors.invalid();
    case 'key':
      return ApiKeyErrors.endpointOutOfScope();
    default:
      return new DomainError(ErrorCode.Forbidden, `Operation "${name}" is not served here`);
  }
}

/**
 * Request step 6, endpoint scope (CONTRACT.md §6 caller table): every root field of the operation
 * must be one the caller may call, and anything not recognised is refused. A key needs the
 * field's API in its scope (else 403 `API key not authorised for this endpoint`); an anonymous
 * caller needs the action switched public (else 401 `Invalid API key`); an app user may call every
 * published API (rows are bounded by row rules) and a builder every field of their working version.
 * A root field the caller's schema does not hold (a mutation where it has no `Mutation` type) is
 * refused the same way: 401 for an anonymous caller, 403 for a key, 403 `Operation … is not served
 * here` for a builder or an app user. A builder viewing as an app user (`viewedBy`) may call the
 * user's read operations only (403 for a write).
 * @throws DomainError FORBIDDEN or UNAUTHENTICATED as above (never a pass).
 */
export function authorizeRootFields(
  caller: Caller,
  appId: string,
  names: readonly string[],
  rootFields: ReadonlyMap<string, RootFieldInfo>,
): void {
  for (const name of names) {
    const info = rootFields.get(name);
    if (!info) {
      if (FIELDS_WITHOUT_API.has(name)) continue;
      throw unknownFieldRefusal(caller, name);
    }
    switch (caller.kind) {
      case 'key': {
        const entry = scopeForApp(caller.principal, appId);
        if (!entry || !scopeCoversApi(entry, info.apiId)) throw ApiKeyErrors.endpointOutOfScope();
        break;
      }
      case 'anonymous':
        if (!info.public) throw ApiKeyErrors.invalid();
        break;
      case 'app-user':
        // A builder viewing as the user (`x-view-as-user`) reads only (issue 27 item 4).
        if (caller.viewedBy && info.action !== 'select' && info.action !== 'aggregate')
          throw new DomainError(
            ErrorCode.Forbidden,
            `Viewing as an app user reads only: "${name}" writes`,
          );
        break;
      case 'builder':
        break;
      default:
        // A caller kind this step does not know is refused, never passed.
        throw new DomainError(ErrorCode.Forbidden, 'Caller not authorised for this endpoint');
    }
  }
}
