import { createHandler } from '../../shared/http/handler.js';
import { scheduleList } from '../../shared/http/schedules.js';
import { routes } from './routes.js';

export const handler = createHandler(routes.list, scheduleList);
