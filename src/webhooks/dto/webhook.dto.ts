import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
} from 'class-validator';
import type { SqlApiEvent, WebhookEvent } from '../../platform/version-definition';

/** `POST /api/apps/:appId/webhooks` and `PUT …/webhooks/:id` body (README "Webhooks"). */
export class WebhookDto {
  @ApiProperty({ description: 'A name for people, 1 to 100 characters.', example: 'ERP sync' })
  @IsString()
  @Length(1, 100)
  name: string;

  @ApiProperty({
    description:
      'Where events are POSTed: http:// or https://, no user information; its host must resolve to public addresses only (loopback, private, link-local and unique-local addresses are refused).',
    example: 'https://erp.example.com/hooks/tablegraph',
  })
  @IsString()
  @Length(1, 2000)
  url: string;

  @ApiProperty({
    description:
      'Ids of the Table APIs whose rows’ changes are sent, and of the mutation-kind SQL APIs whose calls are sent (1 to 100).',
    type: [String],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Length(1, 64, { each: true })
  apis: string[];

  @ApiProperty({
    description:
      'Which changes are sent: inserted, updated, deleted for Table APIs; executed (a committed call) for SQL APIs.',
    enum: ['inserted', 'updated', 'deleted', 'executed'],
    isArray: true,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(4)
  @IsIn(['inserted', 'updated', 'deleted', 'executed'], { each: true })
  events: (WebhookEvent | SqlApiEvent)[];

  @ApiPropertyOptional({
    description:
      'Whether it fires once the version is main; default true. true on a suspended webhook lifts the suspension.',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}
