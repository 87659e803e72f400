export * from './playground-routes.js';
export * from './static-files.js';
export * from './realtime-reference.js';
export { CLIENT_EVENT_DOCS, SERVER_EVENT_DOCS, CLOSE_ENDING_DOCS } from './realtime-reference-catalog.js';
