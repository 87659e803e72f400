import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { jobQueueKind, rendersJobs, servesApi } from '../../src/runtime/process-role.js';

const REDIS = 'redis://127.0.0.1:6391';

describe('process roles, job queue and blob store settings', () => {
  it('picks the queue from SVC_JOB_QUEUE, else from whether a Redis is shared', () => {
    expect(jobQueueKind(loadConfig({}).settings)).to.equal('memory');
    expect(jobQueueKind(loadConfig({ SVC_REDIS_URL: REDIS }).settings)).to.equal('redis');
    expect(jobQueueKind(loadConfig({ SVC_REDIS_URL: REDIS, SVC_JOB_QUEUE: 'memory' }).settings)).to.equal('memory');
  });

  it('says what each role does', () => {
    const of = (role: string) => loadConfig({ SVC_ROLE: role, SVC_REDIS_URL: REDIS });
    expect([servesApi(of('api')), rendersJobs(of('api'))]).to.deep.equal([true, false]);
    expect([servesApi(of('worker')), rendersJobs(of('worker'))]).to.deep.equal([false, true]);
    expect([servesApi(of('both')), rendersJobs(of('both'))]).to.deep.equal([true, true]);
    expect(loadConfig({}).settings.SVC_ROLE).to.equal('both');
  });

  it('refuses, before anything opens, combinations that cannot work', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return 'accepted';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(refusal({ SVC_ROLE: 'worker' })).to.match(/SVC_ROLE=worker needs the shared job queue/);
    expect(refusal({ SVC_ROLE: 'api', SVC_REDIS_URL: REDIS, SVC_JOB_QUEUE: 'memory' })).to.match(/SVC_ROLE=api needs the shared job queue/);
    expect(refusal({ SVC_ROLE: 'render' })).to.match(/^Invalid configuration SVC_ROLE/);
    expect(refusal({ SVC_JOB_QUEUE: 'redis' })).to.match(/SVC_JOB_QUEUE=redis needs SVC_REDIS_URL/);
    expect(refusal({ SVC_BLOB_STORE: 's3' })).to.match(/SVC_BLOB_STORE=s3 needs SVC_S3_BUCKET/);
    expect(refusal({ SVC_BLOB_STORE: 's3', SVC_S3_BUCKET: 'b', SVC_S3_ACCESS_KEY_ID: 'x' })).to.match(/must be set together/);
    expect(refusal({ SVC_JOB_LOCK_MS: '10' })).to.match(/^Invalid configuration SVC_JOB_LOCK_MS/);
    expect(refusal({ SVC_ROLE: 'worker', SVC_REDIS_URL: REDIS, SVC_BLOB_STORE: 's3', SVC_S3_BUCKET: 'b' })).to.equal('accepted');
  });
});
