import { DomainError, ErrorCode } from '../../common/domain-error';
import type { Caller } from '../gateway-context';
import type { RootFieldInfo } from '../schema-builder';
import { authorizeRootFields } from './endpoint-scope';

/** Issue 22 item 13: the endpoint-scope step answers the contract's 401/403 (CONTRACT.md §6). */

const APP = 'app-1';
const ROOT_FIELDS = new Map<string, RootFieldInfo>([
  ['getCustomers', { apiId: 'customers', action: 'select', public: true, datasourceId: 'ds' }],
  ['countOrders', { apiId: 'orders', action: 'select', public: false, datasourceId: 'ds' }],
]);

const anonymous: Caller = { kind: 'anonymous' };
const key: Caller = {
  kind: 'key',
  principal: {
    keyId: 'k',
    scope: [{ appId: APP, endpoints: ['customers'] }],
    rateLimitPerMinute: 60,
    pointsPerMinute: 10_000,
  },
};
const appUser = { kind: 'app-user', user: {} } as unknown as Caller;

/** The refusal `authorizeRootFields` throws, or null when it passes. */
function refusal(caller: Caller, names: string[]): { code: ErrorCode; message: string } | null {
  try {
    authorizeRootFields(caller, APP, names, ROOT_FIELDS);
    return null;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('authorizeRootFields', () => {
  it('lets each caller through to what it sees, introspection included', () => {
    expect(refusal(anonymous, ['getCustomers', '__typename', '__schema'])).toBeNull();
    expect(refusal(key, ['getCustomers'])).toBeNull();
    expect(refusal(appUser, ['getCustomers', 'countOrders'])).toBeNull();
  });

  it('answers an anonymous caller 401 Invalid API key for a known operation not switched public', () => {
    expect(refusal(anonymous, ['countOrders'])).toEqual({
      code: ErrorCode.Unauthenticated,
      message: 'Invalid API key',
    });
  });

  it('answers an anonymous caller 401 Invalid API key for a write its schema has no Mutation type for', () => {
    // `mutation { deleteOrders(id: 1) }` validates against a schema without a Mutation type.
    expect(refusal(anonymous, ['deleteOrders'])).toEqual({
      code: ErrorCode.Unauthenticated,
      message: 'Invalid API key',
    });
  });

  it('answers a key 403 endpoint for operations outside its scope, known or not in its schema', () => {
    const endpoint = {
      code: ErrorCode.Forbidden,
      message: 'API key not authorised for this endpoint',
    };
    expect(refusal(key, ['countOrders'])).toEqual(endpoint);
    expect(refusal(key, ['deleteOrders'])).toEqual(endpoint);
  });

  it('answers a caller who sees every operation 403 for one nothing serves', () => {
    expect(refusal(appUser, ['deleteOrders'])).toEqual({
      code: ErrorCode.Forbidden,
      message: 'Operation "deleteOrders" is not served here',
    });
  });
});
