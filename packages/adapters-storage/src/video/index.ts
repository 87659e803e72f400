export { VideoJobEntity } from './video-job.entity.js';
export { TypeOrmVideoJobRepository } from './typeorm-video-job-repository.js';
export { CreateVideoJobsTable1763900000000 } from './create-video-jobs-table.migration.js';
export { InProcessJobQueue } from './in-process-job-queue.js';
