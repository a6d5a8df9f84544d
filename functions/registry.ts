/**
 * Every declared route. OPERATIONS are the operations of spec/operations.tsv (a test compares
 * them); SUPPORT are the support endpoints of API.md §4.22. Only declarations are imported here,
 * never handler modules, so the CDK app, the local server, the catch-all function and the
 * OpenAPI document load no handler code.
 */
import type { RouteDecl } from '../shared/http/route.js';
import { routes as animes } from './animes/routes.js';
import { routes as changes } from './changes/routes.js';
import { routes as characters } from './characters/routes.js';
import { routes as demographics } from './demographics/routes.js';
import { routes as genres } from './genres/routes.js';
import { routes as home } from './home/routes.js';
import { routes as magazines } from './magazines/routes.js';
import { routes as mangas } from './mangas/routes.js';
import { routes as news } from './news/routes.js';
import { routes as persons } from './persons/routes.js';
import { routes as playlists } from './playlists/routes.js';
import { routes as producers } from './producers/routes.js';
import { routes as random } from './random/routes.js';
import { routes as recommendations } from './recommendations/routes.js';
import { routes as reviews } from './reviews/routes.js';
import { routes as profiles } from './profiles/routes.js';
import { routes as schedules } from './schedules/routes.js';
import { routes as seasons } from './seasons/routes.js';
import { routes as socials } from './socials/routes.js';
import { routes as support } from './support/routes.js';
import { routes as themes } from './themes/routes.js';
import { routes as tokens } from './tokens/routes.js';
import { routes as top } from './top/routes.js';
import { routes as users } from './users/routes.js';

export const OPERATIONS: readonly RouteDecl[] = [animes, changes, characters, demographics, genres, home, magazines, mangas, news, persons, playlists, producers, profiles, random, recommendations, reviews, schedules, seasons, socials, themes, tokens, top, users].flatMap(
  (g): RouteDecl[] => Object.values(g),
);

export const SUPPORT: readonly RouteDecl[] = Object.values(support);

export const ROUTES: readonly RouteDecl[] = [...OPERATIONS, ...SUPPORT];

/** The functions that serve no declared route. */
export const AUTHORIZER_ENTRY = 'functions/authorizer/handler.ts';
export const CATCH_ALL_ENTRY = 'functions/catch-all/handler.ts';
