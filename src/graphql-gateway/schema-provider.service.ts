import { ApolloServer, ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { scopeCoversApi, scopeForApp } from '../api-keys/api-keys.service';
import { ApiKeyErrors } from '../api-keys/api-keys.errors';
import { EventsService } from '../events/events.service';
import type { VersionHead } from '../platform/version-definition';
import { DatasourcesService } from '../data-model/datasources.service';
import { VersionsService } from '../platform/versions.service';
import type { GatewayContext } from './gateway-context';
import { formatGatewayError, toGraphQLError } from './graphql-errors';
import {
  AliasLimitRule,
  checkPageArguments,
  NestingLimitRule,
  rootFieldsOf,
} from './request-limits';
import { RequestPreparer } from './request-preparer';
import { Audience, BuiltSchema, RootFieldInfo, VersionTypes } from './schema-builder';

/** A cached, started Apollo Server over one (version, revision, audience) schema. */
export interface ExecutableSchema extends BuiltSchema {
  server: ApolloServer<GatewayContext>;
  /** Input coercion before Apollo validates (CONTRACT.md §6 Values). */
  preparer: RequestPreparer;
}

const nestLogger = new Logger('Apollo');
/** Apollo's own messages go through the service's logger. */
const APOLLO_LOGGER = {
  debug: (m: unknown) => nestLogger.debug(String(m)),
  info: (m: unknown) => nestLogger.log(String(m)),
  warn: (m: unknown) => nestLogger.warn(String(m)),
  error: (m: unknown) => nestLogger.error(String(m)),
};

/** Schemas kept at once; the least recently used are stopped and dropped. */
const MAX_SCHEMAS = 200;

/**
 * Request step 7 (CONTRACT.md §6): every root field must be one the caller may call. A key needs
 * the field's API in its scope (else 403 endpoint); an anonymous caller needs the action public
 * (else 401). Introspection fields are always allowed.
 */
export function authorizeRootField(ctx: GatewayContext, info: RootFieldInfo | undefined): void {
  if (!info) return;
  const caller = ctx.caller;
  if (caller.kind === 'key') {
    const entry = scopeForApp(caller.principal, ctx.appId);
    if (!entry || !scopeCoversApi(entry, info.apiId))
      throw toGraphQLError(ApiKeyErrors.endpointOutOfScope());
  } else if (caller.kind === 'anonymous' && !info.public) {
    throw toGraphQLError(ApiKeyErrors.invalid());
  }
}

function gatewayRulesPlugin(
  rootFields: Map<string, RootFieldInfo>,
): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request, contextValue }) {
          if (!operation) return;
          checkPageArguments(operation, document, request.variables ?? {});
          for (const field of rootFieldsOf(operation, document))
            authorizeRootField(contextValue, rootFields.get(field.name.value));
        },
      };
    },
  };
}

/**
 * The schema cache (request step 5): one executable schema per (version id, revision, audience),
 * built on first use and reused; the types of a (version, revision) are built once for all its
 * audiences. A new revision is a new key, so changes show on the next request; `ModelChanged`
 * drops older revisions early.
 */
@Injectable()
export class SchemaProviderService implements OnModuleDestroy {
  private readonly schemas = new LRUCache<string, Promise<ExecutableSchema>>({
    max: MAX_SCHEMAS,
    dispose: (entry) => void entry.then((s) => s.server.stop()).catch(() => undefined),
  });
  private readonly types = new LRUCache<string, Promise<VersionTypes>>({ max: MAX_SCHEMAS });
  /** Schemas built since start (the e2e suite reads it to prove reuse). */
  schemasBuilt = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly versions: VersionsService,
    private readonly datasources: DatasourcesService,
    events: EventsService,
  ) {
    this.unsubscribe = events.on('ModelChanged', ({ versionId, revision }) => {
      for (const key of [...this.schemas.keys()]) {
        const [id, rev] = key.split(':');
        if (id === versionId && Number(rev) < revision) this.schemas.delete(key);
      }
    });
  }

  /** The executable schema of a version head for an audience. */
  get(head: VersionHead, audience: Audience): Promise<ExecutableSchema> {
    const key = `${head.versionId}:${head.revision}:${audience}`;
    let entry = this.schemas.get(key);
    if (!entry) {
      entry = this.build(head, audience);
      entry.catch(() => this.schemas.delete(key));
      this.schemas.set(key, entry);
    }
    return entry;
  }

  async onModuleDestroy(): Promise<void> {
    this.unsubscribe();
    await Promise.all(
      [...this.schemas.values()].map((e) => e.then((s) => s.server.stop()).catch(() => undefined)),
    );
    this.schemas.clear();
  }

  private versionTypes(head: VersionHead): Promise<VersionTypes> {
    const key = `${head.versionId}:${head.revision}`;
    let entry = this.types.get(key);
    if (!entry) {
      entry = Promise.all([
        this.versions.definition(head.versionId),
        this.datasources.capabilities(head.appId),
      ]).then(([def, capabilities]) => new VersionTypes(def, capabilities));
      entry.catch(() => this.types.delete(key));
      this.types.set(key, entry);
    }
    return entry;
  }

  private async build(head: VersionHead, audience: Audience): Promise<ExecutableSchema> {
    const built = (await this.versionTypes(head)).schemaFor(audience);
    const server = new ApolloServer<GatewayContext>({
      schema: built.schema,
      introspection: true,
      includeStacktraceInErrorResponses: false,
      logger: APOLLO_LOGGER,
      validationRules: [NestingLimitRule, AliasLimitRule],
      formatError: formatGatewayError,
      plugins: [ApolloServerPluginLandingPageDisabled(), gatewayRulesPlugin(built.rootFields)],
    });
    await server.start();
    this.schemasBuilt++;
    return { ...built, server, preparer: new RequestPreparer(built.schema) };
  }
}
