import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, invalidInput, notFound } from '../common/domain-error';
import type { ModelEnum, VersionDefinition } from '../platform/version-definition';
import { VersionsService } from '../platform/versions.service';

/** Input of create and replace. */
export interface EnumInput {
  name: string;
  description?: string;
  values: { value: string; label?: string; color?: string }[];
}

/** GraphQL reserves these words as values (GraphQL spec §3.9 "Enums"). */
const RESERVED = new Set(['true', 'false', 'null']);

/**
 * App enums (CONTRACT.md §3) in the caller's working version. An enum becomes a GraphQL enum of
 * the same name; deleting it turns the fields that used it back into text.
 */
@Injectable()
export class EnumsService {
  constructor(private readonly versions: VersionsService) {}

  /** Every enum the caller sees. */
  async list(appId: string, accountId: string): Promise<ModelEnum[]> {
    return (await this.versions.readForBuilder(appId, accountId)).enums;
  }

  /** Creates an enum. @throws DomainError INVALID_INPUT (every problem), CONFLICT (name taken). */
  create(appId: string, accountId: string, input: EnumInput): Promise<ModelEnum> {
    return this.versions.edit(appId, accountId, (def) => {
      if (def.enums.some((e) => e.name === input.name))
        throw new DomainError(ErrorCode.Conflict, `An enum named "${input.name}" exists already`);
      const created = toEnum(input);
      def.enums.push(created);
      return created;
    });
  }

  /**
   * Replaces an enum's name, description and values; a new name follows into every field that
   * used the enum. @throws DomainError NOT_FOUND, INVALID_INPUT, CONFLICT.
   */
  replace(appId: string, accountId: string, name: string, input: EnumInput): Promise<ModelEnum> {
    return this.versions.edit(appId, accountId, (def) => {
      const index = def.enums.findIndex((e) => e.name === name);
      if (index < 0) throw notFound('Enum', name);
      if (input.name !== name && def.enums.some((e) => e.name === input.name)) {
        throw new DomainError(ErrorCode.Conflict, `An enum named "${input.name}" exists already`);
      }
      const replaced = toEnum(input);
      def.enums[index] = replaced;
      if (input.name !== name) renameUses(def, name, input.name);
      return replaced;
    });
  }

  /** Deletes an enum for good; its fields become plain text. @throws DomainError NOT_FOUND. */
  delete(appId: string, accountId: string, name: string): Promise<void> {
    return this.versions.edit(appId, accountId, (def) => {
      if (!def.enums.some((e) => e.name === name)) throw notFound('Enum', name);
      def.enums = def.enums.filter((e) => e.name !== name);
      renameUses(def, name, null);
    });
  }
}

function toEnum(input: EnumInput): ModelEnum {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const v of input.values) {
    if (RESERVED.has(v.value)) problems.push(`values: "${v.value}" is reserved by GraphQL`);
    if (seen.has(v.value)) problems.push(`values: "${v.value}" appears twice`);
    seen.add(v.value);
  }
  if (RESERVED.has(input.name)) problems.push(`name: "${input.name}" is reserved by GraphQL`);
  if (problems.length) throw invalidInput('Invalid enum', problems);
  return {
    name: input.name,
    description: input.description ?? null,
    values: input.values.map((v) => ({
      value: v.value,
      label: v.label ?? null,
      color: v.color ?? null,
    })),
  };
}

/**
 * Points every field, and every SQL API argument and column (README "SQL APIs"), that used enum
 * `from` at `to` (null: back to plain text).
 */
function renameUses(def: VersionDefinition, from: string, to: string | null): void {
  for (const table of def.tables)
    for (const column of table.columns) if (column.enum === from) column.enum = to;
  for (const api of def.sqlApis ?? []) {
    for (const part of [...api.arguments, ...api.columns]) {
      if (part.enum !== from) continue;
      if (to === null) delete part.enum;
      else part.enum = to;
    }
  }
}
