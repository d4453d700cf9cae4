import { Inject, Injectable } from '@nestjs/common';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';

/**
 * Encrypts secrets at rest (datasource URLs with their credentials) with AES-256-GCM under a key
 * derived from `PLATFORM_SECRET` by HKDF-SHA-256. Output: `v1.<iv>.<tag>.<ciphertext>`, base64url.
 */
@Injectable()
export class SecretBoxService {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = Buffer.from(
      hkdfSync('sha256', config.platformSecret, 'tablegraph', 'secret-box v1', 32),
    );
  }

  /** Encrypts UTF-8 text; every call uses a fresh 96-bit IV. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Decrypts what {@link seal} produced. @throws Error when the text was tampered with or the secret changed. */
  open(sealed: string): string {
    const [v, iv, tag, data] = sealed.split('.');
    if (v !== 'v1') throw new Error('Unknown secret-box format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(data, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}
