/**
 * Token verification for the functions of public routes (shared/http/handler.ts `tokens`): on
 * those routes no authorizer runs, so the function verifies a token that is sent (decision 2).
 * The verification (jose) is imported by the first request that sends one; functions of other
 * routes do not name it, so it is not in their packages (decision W7).
 */
export const tokenVerification = () => import('./identity.js');

export type TokenVerification = typeof tokenVerification;
