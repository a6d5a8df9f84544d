/**
 * Unit test files: the environment variables functions read, with values that reach nothing
 * (AWS clients are mocked in unit tests). A file that needs other values sets them in vi.hoisted.
 */
Object.assign(process.env, {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  TABLE_NAME: 'unit-test-table',
  PUBLIC_BASE_URL: 'https://api.example.org',
  CORS_ALLOWED_ORIGINS: 'https://app.example.org',
  CURSOR_SECRET_ID: 'cursor-key',
  EMAIL_TOKEN_SECRET_ID: 'email-token-key',
  JWT_PUBLIC_SECRET_ID: 'jwt-public',
  JWT_PRIVATE_SECRET_ID: 'jwt-private',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  // The specific rate limits count in DynamoDB; unit tests of other things need not mock that.
  // test/unit/rate-limits.test.ts switches them on for itself.
  RATE_LIMITS: 'off',
  MAIL_FROM: 'no-reply@catalogue.test',
  FRONTEND_URL: 'https://app.example.org',
  PICTURES_BUCKET: 'unit-test-pictures',
  PICTURES_BASE_URL: 'https://pictures.example.org',
  INDEX_BUCKET: 'unit-test-index',
});
