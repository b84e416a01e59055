/**
 * SCRAM-SHA-256, server side, as PostgreSQL speaks it (RFC 5802 and RFC 7677; PostgreSQL
 * docs "SASL Authentication"): no channel binding (the server offers only `SCRAM-SHA-256`,
 * so a client sends the GS2 header `n,,` or `y,,`), the user name in the message is ignored
 * (PostgreSQL takes it from the startup packet), 4096 PBKDF2 iterations.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { ProtocolError } from './wire.ts';

/** The password's derived keys, computed once per server (the salt is per server start). */
export interface ScramSecret {
  readonly salt: Buffer;
  readonly iterations: number;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

/** Derives the SCRAM secret of a password (PBKDF2-HMAC-SHA-256 over a fresh 16-byte salt). */
export function scramSecret(password: string, iterations = 4096): ScramSecret {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  return { salt, iterations, storedKey: createHash('sha256').update(hmac(salted, 'Client Key')).digest(), serverKey: hmac(salted, 'Server Key') };
}

/** One SCRAM exchange: `first` answers the client-first message, `final` checks the proof. */
export class ScramExchange {
  readonly #secret: ScramSecret;
  #clientFirstBare = '';
  #serverFirst = '';
  #nonce = '';

  constructor(secret: ScramSecret) {
    this.#secret = secret;
  }

  /**
   * @param clientFirst `n,,n=user,r=nonce` (UTF-8)
   * @returns the server-first message `r=nonce+ours,s=salt,i=iterations`
   * @throws ProtocolError (08P01) for a malformed message or channel binding (`p=`)
   */
  first(clientFirst: string): string {
    const m = /^([ny]),(?:a=[^,]*)?,(.*)$/.exec(clientFirst);
    if (m === null) throw new ProtocolError(clientFirst.startsWith('p') ? 'SCRAM channel binding is not supported; connect without channel binding' : 'malformed SCRAM client-first message');
    this.#clientFirstBare = m[2]!;
    const r = /(?:^|,)r=([^,]+)/.exec(this.#clientFirstBare);
    if (r === null) throw new ProtocolError('SCRAM client-first message has no nonce');
    this.#nonce = r[1]! + randomBytes(18).toString('base64');
    this.#serverFirst = `r=${this.#nonce},s=${this.#secret.salt.toString('base64')},i=${this.#secret.iterations}`;
    return this.#serverFirst;
  }

  /**
   * @param clientFinal `c=biws,r=nonce,p=proof`
   * @returns the server-final message `v=signature` when the proof is right, null when not
   * @throws ProtocolError for a malformed message or a nonce that is not ours
   */
  final(clientFinal: string): string | null {
    const p = clientFinal.lastIndexOf(',p=');
    if (p < 0) throw new ProtocolError('SCRAM client-final message has no proof');
    const withoutProof = clientFinal.slice(0, p);
    const r = /(?:^|,)r=([^,]+)/.exec(withoutProof);
    if (r === null || r[1] !== this.#nonce) throw new ProtocolError('SCRAM nonce does not match');
    const proof = Buffer.from(clientFinal.slice(p + 3), 'base64');
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`;
    const signature = hmac(this.#secret.storedKey, authMessage);
    if (proof.length !== signature.length) return null;
    const clientKey = Buffer.from(proof.map((b, i) => b ^ signature[i]!));
    const ok = timingSafeEqual(createHash('sha256').update(clientKey).digest(), this.#secret.storedKey);
    return ok ? `v=${hmac(this.#secret.serverKey, authMessage).toString('base64')}` : null;
  }
}
