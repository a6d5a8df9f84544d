/**
 * What a verified token says (API.md §2.2) and what makes its caller valid, without the code that
 * verifies tokens (tokens.ts, with jose): the handler chain judges callers with these, and imports
 * token verification only when a request carries a token (shared/http/handler.ts).
 */
import type { AuthState } from '../db/users.js';
import type { Caller } from './roles.js';

export type TokenType = 'access' | 'refresh';

export interface TokenClaims {
  sub: string;
  user_id: string;
  token_type: TokenType;
  /** The user's token version when the token was issued (see db/users.ts). */
  tv: number;
  jti: string;
  iat: number;
  exp: number;
  /** Refresh-token family (refresh tokens and the access tokens issued from them). */
  fam?: string;
}

export class InvalidToken extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidToken';
  }
}

/** The caller of verified claims, given the auth state of the user they name. */
export function callerOf(claims: TokenClaims, auth: AuthState | null): Caller {
  if (!auth) throw new InvalidToken('user not found');
  if (!auth.is_active) throw new InvalidToken('user inactive');
  if (auth.token_version !== claims.tv) throw new InvalidToken('token revoked');
  if (claims.fam !== undefined && auth.revoked_families[claims.fam] !== undefined) throw new InvalidToken('token family revoked');
  return { user_id: auth.user_id, username: auth.username, role: auth.role };
}
