/**
 * Bundled in place of `@aws-sdk/credential-provider-node` (see BUNDLING in ../function.ts). On
 * Lambda the credentials of the function's role are always in the environment, so the default
 * chain (SSO, INI files, STS web identity, IMDS, …, about 135 KB minified) is never used; this
 * keeps only its environment step. Local runs are not bundled and keep the full chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = () => fromEnv();
