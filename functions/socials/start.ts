/**
 * GET /api/socials/o/{provider}/ (API.md §4.17): the provider's authorization URL, with a new
 * state (kept 10 minutes with the nonce, the PKCE verifier and the redirect URI).
 */
import { authorizationRequest, providerMetadata, ProviderUnavailable, STATE_LIFETIME_SECONDS, socialProvider } from '../../shared/auth/social.js';
import { saveSocialState } from '../../shared/db/social.js';
import { createHandler, type ApiRequest, type Reply } from '../../shared/http/handler.js';
import { requestLimits } from '../../shared/http/rate-limiter.js';
import { invalidQuery, notFound, serviceUnavailable } from '../../shared/problem.js';
import { logger } from '../../shared/log.js';
import { routes } from './routes.js';

export async function operation(req: ApiRequest<typeof routes.start>): Promise<Reply> {
  const provider = socialProvider(req.params.provider);
  if (!provider) throw notFound('No such social provider.');
  const redirectUri = req.query.redirect_uri;
  if (!provider.redirect_uris.includes(redirectUri)) {
    throw invalidQuery({ redirect_uri: ['This redirect URI is not allowed for this provider.'] });
  }
  let metadata;
  try {
    metadata = await providerMetadata(provider);
  } catch (err) {
    if (!(err instanceof ProviderUnavailable)) throw err;
    logger.warn('social provider unavailable', { provider: provider.name, error: err.message });
    throw serviceUnavailable();
  }
  const request = authorizationRequest(provider, metadata, redirectUri);
  await saveSocialState(request.state, {
    provider: provider.name,
    redirect_uri: redirectUri,
    nonce: request.nonce,
    verifier: request.verifier,
    expires_at: Math.floor(Date.now() / 1000) + STATE_LIFETIME_SECONDS,
  });
  return { status: 200, body: { authorization_url: request.url } };
}

export const handler = createHandler(routes.start, operation, { rateLimits: requestLimits });
