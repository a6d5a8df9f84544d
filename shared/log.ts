/** The structured JSON logger (Powertools). Never log request bodies, tokens or passwords. */
import { Logger } from '@aws-lambda-powertools/logger';

/** Level from POWERTOOLS_LOG_LEVEL (default INFO); the local runtime and tests set it. */
export const logger = new Logger({ serviceName: 'catalogue-api' });
