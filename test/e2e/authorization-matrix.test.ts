/**
 * The authorization matrix (issue 9 §3): every one of the 151 operations, and the 2 extensions of
 * §8 (rows 152 and 153: the change feed and the airing calendar, open to anyone), × every caller kind of
 * API.md §2.4 gets exactly the status the contract says. The expectations are §2.5's permission
 * table, copied below as data (with each operation's success status from §4), and §2.1 for the
 * callers whose token is not valid — never the route declarations, so that a wrong declaration
 * (access role, guard, ownership check) shows here.
 *
 * Columns: Anon, Member (a member acting on another member's record), Premium (a member-like
 * caller, §2.4: expected as Member), Owner (a member acting on their own record, where §2.5 has
 * one), Contrib, Mod, Admin (on another member's record), and the callers §2.1 refuses on every
 * operation that reads the header: a deactivated user, a token revoked by a password change, an
 * expired token, a refresh token sent as an access token (expected: 401 invalid-token, except
 * the credential-establishing operations, which ignore the header and succeed).
 *
 * Each cell sends a request that would succeed but for the caller (test/support/operations.ts):
 * existing path ids, a valid body, a record of its own for every write that should succeed and
 * for every DELETE. `vote` cells send a helpful vote (success) and an author's edit (403).
 * The table of cells is printed; mismatches are listed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Role } from '../../shared/auth/roles.js';
import { makeAccount, type Account } from '../support/accounts.js';
import { problemDefects, problemKind, type ProblemKind } from '../support/problems.js';
import { OPERATION_FIXTURES, sendCall, World, type InvalidCaller, type OperationFixture } from '../support/operations.js';
import { useServer } from '../support/server.js';
import { SPEC_OPERATIONS } from '../support/spec.js';

// The matrix watches statuses only: no stream consumers or jobs are needed.
const server = useServer({ background: false });

/** API.md §2.5, with each operation's success status (§4) added. */
const PERMISSIONS = `
| # | Method | Path | Success | Anon | Member | Owner | Contrib | Mod | Admin |
|---|---|---|---|---|---|---|---|---|---|
| 1 | GET | /api/animes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 2 | POST | /api/animes/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 3 | GET | /api/animes/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 4 | PUT | /api/animes/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 5 | PATCH | /api/animes/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 6 | DELETE | /api/animes/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 7 | GET | /api/animes/{id}/characters/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 8 | GET | /api/animes/{id}/news/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 9 | GET | /api/animes/{id}/pictures/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 10 | GET | /api/animes/{id}/recommendations/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 11 | GET | /api/animes/{id}/staff/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 12 | GET | /api/animes/{id}/stats/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 13 | GET | /api/animes/{id}/videos/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 14 | GET | /api/animes/{id}/reviews/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 15 | PATCH | /api/animes/{id}/reviews/{review_id}/ | 200 | 401 | vote | ✓ | vote | vote | vote |
| 16 | DELETE | /api/animes/{id}/reviews/{review_id}/ | 204 | 401 | 403 | ✓ | 403 | ✓ | ✓ |
| 17 | POST | /api/animes/{id}/reviews/create/ | 201 | 401 | ✓ | — | ✓ | ✓ | ✓ |
| 18 | GET | /api/characters/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 19 | POST | /api/characters/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 20 | GET | /api/characters/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 21 | PUT | /api/characters/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 22 | PATCH | /api/characters/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 23 | DELETE | /api/characters/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 24 | GET | /api/characters/members/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 25 | GET | /api/demographics/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 26 | POST | /api/demographics/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 27 | GET | /api/demographics/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 28 | PUT | /api/demographics/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 29 | PATCH | /api/demographics/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 30 | DELETE | /api/demographics/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 31 | GET | /api/genres/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 32 | POST | /api/genres/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 33 | GET | /api/genres/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 34 | PUT | /api/genres/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 35 | PATCH | /api/genres/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 36 | DELETE | /api/genres/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 37 | GET | /api/genres/{id}/animes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 38 | GET | /api/genres/{id}/mangas/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 39 | GET | /api/home/ | 200 | ✓ | ✓ᵖ | — | ✓ᵖ | ✓ᵖ | ✓ᵖ |
| 40 | GET | /api/magazines/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 41 | POST | /api/magazines/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 42 | GET | /api/magazines/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 43 | PUT | /api/magazines/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 44 | PATCH | /api/magazines/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 45 | DELETE | /api/magazines/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 46 | GET | /api/mangas/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 47 | POST | /api/mangas/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 48 | GET | /api/mangas/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 49 | PUT | /api/mangas/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 50 | PATCH | /api/mangas/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 51 | DELETE | /api/mangas/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 52 | GET | /api/mangas/{id}/characters/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 53 | GET | /api/mangas/{id}/news/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 54 | GET | /api/mangas/{id}/pictures/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 55 | GET | /api/mangas/{id}/recommendations/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 56 | GET | /api/mangas/{id}/stats/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 57 | GET | /api/mangas/{id}/reviews/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 58 | PATCH | /api/mangas/{id}/reviews/{review_id}/ | 200 | 401 | vote | ✓ | vote | vote | vote |
| 59 | DELETE | /api/mangas/{id}/reviews/{review_id}/ | 204 | 401 | 403 | ✓ | 403 | ✓ | ✓ |
| 60 | POST | /api/mangas/{id}/reviews/create/ | 201 | 401 | ✓ | — | ✓ | ✓ | ✓ |
| 61 | GET | /api/news/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 62 | POST | /api/news/ | 201 | 401 | 403 | — | 403 | ✓ | ✓ |
| 63 | GET | /api/news/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 64 | PUT | /api/news/{id}/ | 200 | 401 | 403 | — | 403 | ✓ | ✓ |
| 65 | PATCH | /api/news/{id}/ | 200 | 401 | 403 | — | 403 | ✓ | ✓ |
| 66 | DELETE | /api/news/{id}/ | 204 | 401 | 403 | — | 403 | ✓ | ✓ |
| 67 | GET | /api/persons/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 68 | POST | /api/persons/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 69 | GET | /api/persons/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 70 | PUT | /api/persons/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 71 | PATCH | /api/persons/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 72 | DELETE | /api/persons/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 73 | POST | /api/persons/{id}/create-picture/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 74 | GET | /api/persons/{id}/mangas/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 75 | GET | /api/persons/{id}/pictures/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 76 | GET | /api/persons/{id}/voices/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 77 | GET | /api/playlists/animelist/ | 200 | 401 | self | self | self | self | self |
| 78 | PATCH | /api/playlists/animelist/ | 200 | 401 | self | self | self | self | self |
| 79 | GET | /api/playlists/animelist/animes/ | 200 | 401 | self | self | self | self | self |
| 80 | POST | /api/playlists/animelist/animes/ | 201 | 401 | self | self | self | self | self |
| 81 | GET | /api/playlists/animelist/animes/{item_id}/ | 200 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 82 | PATCH | /api/playlists/animelist/animes/{item_id}/ | 200 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 83 | DELETE | /api/playlists/animelist/animes/{item_id}/ | 204 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 84 | GET | /api/playlists/mangalist/ | 200 | 401 | self | self | self | self | self |
| 85 | PATCH | /api/playlists/mangalist/ | 200 | 401 | self | self | self | self | self |
| 86 | GET | /api/playlists/mangalist/mangas/ | 200 | 401 | self | self | self | self | self |
| 87 | POST | /api/playlists/mangalist/mangas/ | 201 | 401 | self | self | self | self | self |
| 88 | GET | /api/playlists/mangalist/mangas/{item_id}/ | 200 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 89 | PATCH | /api/playlists/mangalist/mangas/{item_id}/ | 200 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 90 | DELETE | /api/playlists/mangalist/mangas/{item_id}/ | 204 | 401 | 404 | ✓ | 404 | 404 | 404 |
| 91 | GET | /api/producers/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 92 | POST | /api/producers/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 93 | GET | /api/producers/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 94 | PUT | /api/producers/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 95 | PATCH | /api/producers/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 96 | DELETE | /api/producers/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 97 | GET | /api/producers/{id}/animes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 98 | GET | /api/profiles/ | 200 | 401 | 403 | — | 403 | 403 | ✓ |
| 99 | POST | /api/profiles/ | 201 | 401 | 403 | — | 403 | 403 | ✓ |
| 100 | GET | /api/profiles/{id}/ | 200 | 401 | 403 | 403 | 403 | 403 | ✓ |
| 101 | PUT | /api/profiles/{id}/ | 200 | 401 | 403 | 403 | 403 | 403 | ✓ |
| 102 | PATCH | /api/profiles/{id}/ | 200 | 401 | 403 | 403 | 403 | 403 | ✓ |
| 103 | DELETE | /api/profiles/{id}/ | 204 | 401 | 403 | 403 | 403 | 403 | ✓ |
| 104 | GET | /api/profiles/my-profile/ | 200 | 401 | self | self | self | self | self |
| 105 | PATCH | /api/profiles/update-profile/ | 200 | 401 | self | self | self | self | self |
| 106 | GET | /api/random/anime/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 107 | GET | /api/random/character/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 108 | GET | /api/random/manga/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 109 | GET | /api/random/person/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 110 | GET | /api/recommendations/anime/ | 200 | ✓ | ✓ᵖ | — | ✓ᵖ | ✓ᵖ | ✓ᵖ |
| 111 | GET | /api/recommendations/manga/ | 200 | ✓ | ✓ᵖ | — | ✓ᵖ | ✓ᵖ | ✓ᵖ |
| 112 | GET | /api/schedules/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 113 | GET | /api/seasons/{year}/{season}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 114 | GET | /api/seasons/now/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 115 | GET | /api/seasons/upcoming/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 116 | GET | /api/socials/o/{provider}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 117 | POST | /api/socials/o/{provider}/ | 201 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 118 | GET | /api/themes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 119 | POST | /api/themes/ | 201 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 120 | GET | /api/themes/{id}/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 121 | PUT | /api/themes/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 122 | PATCH | /api/themes/{id}/ | 200 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 123 | DELETE | /api/themes/{id}/ | 204 | 401 | 403 | — | ✓ | ✓ | ✓ |
| 124 | POST | /api/tokens/jwt/create/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 125 | POST | /api/tokens/jwt/refresh/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 126 | POST | /api/tokens/jwt/verify/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 127 | GET | /api/top/animes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 128 | GET | /api/top/artists/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 129 | GET | /api/top/characters/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 130 | GET | /api/top/mangas/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 131 | GET | /api/top/reviews/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 132 | GET | /api/users/ | 200 | 401 | 403 | — | 403 | 403 | ✓ |
| 133 | POST | /api/users/ | 201 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 134 | GET | /api/users/{id}/ | 200 | 401 | 403 | ✓ | 403 | 403 | ✓ |
| 135 | PUT | /api/users/{id}/ | 200 | 401 | 403 | ✓ | 403 | 403 | ✓ |
| 136 | PATCH | /api/users/{id}/ | 200 | 401 | 403 | ✓ | 403 | 403 | ✓ |
| 137 | DELETE | /api/users/{id}/ | 204 | 401 | 403 | ✓ | 403 | 403 | ✓ |
| 138 | GET | /api/users/{username}/about/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 139 | GET | /api/users/{username}/reviews/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 140 | POST | /api/users/activation/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 141 | GET | /api/users/me/ | 200 | 401 | self | self | self | self | self |
| 142 | PUT | /api/users/me/ | 200 | 401 | self | self | self | self | self |
| 143 | PATCH | /api/users/me/ | 200 | 401 | self | self | self | self | self |
| 144 | DELETE | /api/users/me/ | 204 | 401 | self | self | self | self | self |
| 145 | POST | /api/users/resend_activation/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 146 | POST | /api/users/reset_email/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 147 | POST | /api/users/reset_email_confirm/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 148 | POST | /api/users/reset_password/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 149 | POST | /api/users/reset_password_confirm/ | 204 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 150 | POST | /api/users/set_email/ | 204 | 401 | self | self | self | self | self |
| 151 | POST | /api/users/set_password/ | 204 | 401 | self | self | self | self | self |
| 152 | GET | /api/changes/ | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
| 153 | GET | /api/schedules/calendar.ics | 200 | ✓ | ✓ | — | ✓ | ✓ | ✓ |
`;

/** §2.1: the credential-establishing operations, which ignore the Authorization header. */
const IGNORES_AUTHORIZATION = new Set([
  'POST /api/tokens/jwt/create/',
  'POST /api/tokens/jwt/refresh/',
  'POST /api/tokens/jwt/verify/',
  'GET /api/socials/o/{provider}/',
  'POST /api/socials/o/{provider}/',
  'POST /api/users/',
  'POST /api/users/activation/',
  'POST /api/users/resend_activation/',
  'POST /api/users/reset_password/',
  'POST /api/users/reset_password_confirm/',
  'POST /api/users/reset_email/',
  'POST /api/users/reset_email_confirm/',
]);

const TABLE_COLUMNS = ['Anon', 'Member', 'Owner', 'Contrib', 'Mod', 'Admin'] as const;
type TableColumn = (typeof TABLE_COLUMNS)[number];
const INVALID: Record<InvalidCaller, string> = { deactivated: 'Deactivated', revoked: 'Revoked', expired: 'Expired', refresh: 'Refresh' };
const COLUMNS = ['Anon', 'Member', 'Premium', 'Owner', 'Contrib', 'Mod', 'Admin', ...Object.values(INVALID)] as const;
type Column = (typeof COLUMNS)[number];
/** The role of the signed-in columns' callers. */
const ROLE: Partial<Record<Column, Role>> = { Member: 'member', Premium: 'premium', Owner: 'member', Contrib: 'contributor', Mod: 'moderator', Admin: 'administrator' };

interface Row {
  n: number;
  method: string;
  path: string;
  success: number;
  cells: Record<TableColumn, string>;
}

const ROWS: Row[] = PERMISSIONS.trim()
  .split('\n')
  .slice(2)
  .map((line) => {
    const [n, method, path, success, ...cells] = line.split('|').slice(1, -1).map((c) => c.trim());
    return { n: Number(n), method: method!, path: path!, success: Number(success), cells: Object.fromEntries(TABLE_COLUMNS.map((c, i) => [c, cells[i]!])) as Record<TableColumn, string> };
  });

/** The operation's key in spec/operations.tsv and the fixtures (review paths have `{id}` twice there). */
const keyOf = (row: Row) => `${row.method} ${row.path.replace('{review_id}', '{id}')}`;

/** What a cell expects: a status (and problem type), and for `vote` the status of a non-vote body. */
interface Expected {
  symbol: string;
  status: number;
  type?: ProblemKind;
  notVote?: number;
}

function expectedOf(row: Row, column: Column): Expected | null {
  if (Object.values(INVALID).includes(column)) {
    return IGNORES_AUTHORIZATION.has(keyOf(row)) ? { symbol: '✓', status: row.success } : { symbol: '401', status: 401, type: 'invalid-token' };
  }
  const symbol = row.cells[column === 'Premium' ? 'Member' : (column as TableColumn)];
  switch (symbol) {
    case '—':
      return null;
    case '✓':
    case '✓ᵖ':
    case 'self':
      return { symbol, status: row.success };
    case 'vote':
      return { symbol, status: row.success, notVote: 403 };
    case '401':
      return { symbol, status: 401, type: column === 'Anon' ? 'authentication-required' : 'invalid-token' };
    case '403':
      return { symbol, status: 403, type: 'forbidden' };
    case '404':
      return { symbol, status: 404, type: 'not-found' };
    default:
      throw new Error(`§2.5 row ${row.n}: unknown cell ${symbol}`);
  }
}

interface Cell {
  row: Row;
  column: Column;
  expected: Expected;
  /** Statuses received (two for `vote`: the vote, then the non-vote body). */
  actual: number[];
  problems: string[];
}

const world = new World(server);
let callers: Partial<Record<Column, Account>>;
const cells: Cell[] = [];

beforeAll(async () => {
  await world.init(join(inject('dataDir'), 'secrets'));
  const signedIn = await Promise.all(Object.entries(ROLE).map(async ([column, role]) => [column, await makeAccount({ role })] as const));
  const invalid = await world.invalidCallers();
  callers = { ...Object.fromEntries(signedIn), ...Object.fromEntries(Object.entries(invalid).map(([k, a]) => [INVALID[k as InvalidCaller], a])) };
}, 120_000);

afterAll(async () => {
  await world.close();
});

/** Runs `tasks` with at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** What is wrong with a response for this expectation (empty: it matches). */
function mismatches(res: Awaited<ReturnType<typeof sendCall>>, status: number, type: ProblemKind | undefined): string[] {
  if (res.status !== status) return [`${res.status} ${res.text.slice(0, 160)}`];
  if (status < 400) return [];
  const out = problemDefects(res);
  if (type && problemKind(res) !== type) out.push(`type ${problemKind(res)}, expected ${type}`);
  return out;
}

/**
 * A cell's request, sent again after its `Retry-After` when it gets 503 (at most twice), as a
 * client does: cells run side by side, and creations and deletions of one kind take turns on the
 * kind's counter and random-pick slots (a write that keeps losing those races answers 503, which
 * says nothing about who may call the operation).
 */
async function sendCell(call: Parameters<typeof sendCall>[1], headers: Record<string, string>) {
  for (let attempt = 0; ; attempt++) {
    const res = await sendCall(server, call, headers);
    if (res.status !== 503 || attempt >= 2) return res;
    await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
  }
}

async function runCell(fixture: OperationFixture, row: Row, column: Column, expected: Expected): Promise<Cell> {
  const signedIn = ROLE[column] !== undefined;
  let caller: Account | null = column === 'Anon' ? null : callers[column]!;
  const target = column === 'Owner' ? 'own' : 'other';
  if (signedIn && (fixture.consumesCaller === 'always' || (fixture.consumesCaller === 'own' && target === 'own'))) caller = await makeAccount({ role: ROLE[column] });
  const headers = caller?.auth ?? {};
  const succeeds = expected.status < 300;
  // A vote changes no field of the review: the shared one takes them all.
  const fresh = succeeds && row.method !== 'GET' && expected.notVote === undefined;
  const call = await fixture.build({ world, caller, target, fresh, reviewBody: expected.notVote ? 'vote' : undefined });
  const res = await sendCell(call, headers);
  const cell: Cell = { row, column, expected, actual: [res.status], problems: mismatches(res, expected.status, expected.type) };
  if (expected.notVote !== undefined) {
    const edit = await fixture.build({ world, caller, target, fresh: false, reviewBody: 'edit' });
    const refused = await sendCell(edit, headers);
    cell.actual.push(refused.status);
    cell.problems.push(...mismatches(refused, expected.notVote, 'forbidden').map((p) => `non-vote body: ${p}`));
  }
  return cell;
}

describe('the authorization matrix (API.md §2.1, §2.4, §2.5)', () => {
  it('§2.5 lists the 151 operations of docs/spec/operations.tsv, then the 2 extensions of §8 (open to anyone), and every one has a request fixture', () => {
    const spec = SPEC_OPERATIONS.map((o) => o.key);
    expect(ROWS.map((r) => r.n)).toEqual(Array.from({ length: spec.length }, (_, i) => i + 1));
    expect(ROWS.map(keyOf)).toEqual(spec);
    expect(ROWS.map(keyOf).filter((k) => !OPERATION_FIXTURES.has(k))).toEqual([]);
    expect(OPERATION_FIXTURES.size).toBe(spec.length);
  });

  it('every cell gives exactly the status the contract says', { timeout: 600_000 }, async () => {
    const work = ROWS.flatMap((row) => COLUMNS.map((column) => ({ row, column, expected: expectedOf(row, column) }))).filter(
      (w): w is { row: Row; column: Column; expected: Expected } => w.expected !== null,
    );
    const started = Date.now();
    await pool(work, 6, async ({ row, column, expected }) => {
      const fixture = OPERATION_FIXTURES.get(keyOf(row))!;
      try {
        cells.push(await runCell(fixture, row, column, expected));
      } catch (err) {
        cells.push({ row, column, expected, actual: [], problems: [`fixture failed: ${(err as Error).message}`] });
      }
    });
    const seconds = (Date.now() - started) / 1000;

    const byKey = new Map(cells.map((c) => [`${c.row.n} ${c.column}`, c]));
    const lines = [
      `Authorization matrix: ${cells.length} cells (${ROWS.length} operations × ${COLUMNS.length} caller kinds, Owner only where §2.5 has it), ${cells.reduce((n, c) => n + c.actual.length, 0)} requests and ${world.setupRequests} to set up their records, ${seconds.toFixed(1)} s.`,
      'Each cell: the status received, which is the expected one (§2.5 / §2.1) unless shown as **expected≠received**; vote cells: vote/non-vote body; ·: no Owner cell in §2.5.',
      '',
      `| # | Operation | ${COLUMNS.join(' | ')} |`,
      `|---|---|${COLUMNS.map(() => '---').join('|')}|`,
      ...ROWS.map((row) => {
        const shown = COLUMNS.map((column) => {
          const c = byKey.get(`${row.n} ${column}`);
          if (!c) return '·';
          const want = [c.expected.status, ...(c.expected.notVote ? [c.expected.notVote] : [])].join('/');
          const got = c.actual.join('/') || 'error';
          return c.problems.length === 0 ? got : `**${want}≠${got}**`;
        });
        return `| ${row.n} | ${row.method} ${row.path} | ${shown.join(' | ')} |`;
      }),
    ];
    console.log(lines.join('\n'));

    const failed = cells.filter((c) => c.problems.length > 0).sort((a, b) => a.row.n - b.row.n || COLUMNS.indexOf(a.column) - COLUMNS.indexOf(b.column));
    const report = failed.map((c) => `#${c.row.n} ${c.row.method} ${c.row.path} × ${c.column}: expected ${c.expected.symbol} (${c.expected.status}${c.expected.type ? ` ${c.expected.type}` : ''}); ${c.problems.join('; ')}`);
    expect(report, `${failed.length} of ${cells.length} cells differ from the contract`).toEqual([]);
    expect(cells.length).toBe(work.length);
  });

  it('an administrator on their own profile id is an administrator (§4.12; the Owner cells of rows 100–103 are for the other roles: docs/decisions.md A3)', async () => {
    const admin = callers.Admin!;
    const path = `/api/profiles/${admin.profileId}/`;
    for (const [method, body, status] of [['GET', undefined, 200], ['PATCH', { location: 'Kyoto' }, 200], ['PUT', { bio: 'Runs the place.' }, 200]] as const) {
      const res = await sendCall(server, { method, path, body }, admin.auth);
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
    }
  });
});
