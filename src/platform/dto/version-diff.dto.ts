import { ApiProperty } from '@nestjs/swagger';

/** One change of a working version against main (`version-diff.ts` `VersionChange`). */
export class VersionChangeAnswer {
  @ApiProperty({ enum: ['api', 'table', 'enum', 'rule'], description: 'What changed' })
  area: 'api' | 'table' | 'enum' | 'rule';
  @ApiProperty({ enum: ['added', 'removed', 'changed'] })
  change: 'added' | 'removed' | 'changed';
  @ApiProperty({ description: 'The Table API, table, enum or role' })
  name: string;
  @ApiProperty({ type: [String], description: 'What changed, one sentence each' })
  details: string[];
}

/** `GET /api/apps/:appId/versions/diff` answer (`version-diff.ts` `VersionDiff`). */
export class VersionDiffAnswer {
  @ApiProperty({ description: 'Main version revision' })
  mainRevision: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Your working version revision; null when you have none (nothing to publish)',
  })
  workingRevision: number | null;
  @ApiProperty({ type: [VersionChangeAnswer], description: 'Every change; empty when none' })
  changes: VersionChangeAnswer[];
}
