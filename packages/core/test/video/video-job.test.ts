import { expect } from 'chai';
import { parseVideoSize, reportProgress, toVideoResource, transition, videoDimensions, type VideoJob } from '../../src/video/video-job.js';
import { ServiceError } from '../../src/shared/errors.js';

const queued: VideoJob = {
  id: 'video_1',
  apiKeyId: 'key_1',
  model: 'svc-avatar',
  status: 'queued',
  progress: 0,
  size: '640x480',
  durationSeconds: 4.2,
  createdAt: 1_800_000_000_000,
  completedAt: null,
  expiresAt: null,
  error: null,
  attempts: 0,
};

describe('VideoJob state machine', () => {
  it('moves queued -> in_progress -> completed with forward-only progress', () => {
    let job = transition(queued, 'in_progress');
    job = reportProgress(job, 40);
    expect(reportProgress(job, 10).progress).to.equal(40);
    expect(reportProgress(job, 150).progress).to.equal(99);
    job = transition(job, 'completed');
    expect(job).to.include({ status: 'completed', progress: 100, error: null });
  });

  it('fails with a message from queued or in_progress, and nothing leaves a final state', () => {
    expect(transition(queued, 'failed', { error: 'bad image' })).to.include({ status: 'failed', error: 'bad image' });
    const done = transition(transition(queued, 'in_progress'), 'completed');
    expect(() => transition(done, 'failed', { error: 'x' })).to.throw(/Illegal/);
    expect(() => transition(queued, 'completed')).to.throw(/Illegal/);
    expect(() => transition(queued, 'failed')).to.throw(/error message/);
  });

  it('counts attempts when a render starts and stamps the end time', () => {
    const running = transition(queued, 'in_progress');
    expect(running.attempts).to.equal(1);
    expect(transition(running, 'completed', { at: 5 }).completedAt).to.equal(5);
    expect(transition(running, 'in_progress').attempts).to.equal(2);
  });

  it('a started job never goes back: a re-render stays in_progress at its progress, queued is illegal', () => {
    const running = reportProgress(transition(queued, 'in_progress'), 30);
    expect(transition(running, 'in_progress')).to.include({ status: 'in_progress', progress: 30, attempts: 2 });
    expect(() => transition(running, 'queued')).to.throw(/Illegal/);
    // The new render reports from frame 0: the stored value holds until it passes it.
    expect(reportProgress(transition(running, 'in_progress'), 5).progress).to.equal(30);
    expect(reportProgress(transition(running, 'in_progress'), 35).progress).to.equal(35);
  });

  it('renders the REST resource with every field, error null unless failed', () => {
    expect(toVideoResource(queued)).to.deep.equal({
      id: 'video_1',
      object: 'video',
      model: 'svc-avatar',
      status: 'queued',
      progress: 0,
      size: '640x480',
      seconds: '4.2',
      created_at: 1_800_000_000,
      completed_at: null,
      expires_at: null,
      error: null,
    });
    expect(toVideoResource(transition(queued, 'failed', { error: 'boom' })).error).to.equal('boom');
  });

  it('knows the three sizes and defaults to square', () => {
    expect(parseVideoSize(undefined)).to.equal('640x640');
    expect(videoDimensions(parseVideoSize('480x640'))).to.deep.equal({ width: 480, height: 640 });
    expect(() => parseVideoSize('1920x1080')).to.throw(ServiceError);
  });
});
