import { createHandler } from '../../shared/http/handler.js';
import { scheduleCalendar } from '../../shared/http/schedules.js';
import { routes } from './routes.js';
import { tokenVerification } from '../../shared/auth/verification.js';

export const handler = createHandler(routes.calendar, scheduleCalendar, { tokens: tokenVerification });
