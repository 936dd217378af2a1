// The app behind the README's emitters screenshot (scripts/screenshots.mjs starts it with
// `node --require busscope-probe/register`): a plain Node http server that knows nothing of
// Busscope, two emitters of its own, and a deliberate leak — every request adds a 'close' listener
// to one shared emitter and never removes it. Prints its port; serves until killed.
'use strict';
const http = require('node:http');
const { EventEmitter } = require('node:events');

class JobQueue extends EventEmitter {}
class Metrics extends EventEmitter {}

const jobs = new JobQueue();
const metrics = new Metrics();
const shutdown = new EventEmitter(); // shared by every request: the leak lives here
let served = 0;

jobs.on('job', function runJob(job) {
  metrics.emit('sample', { path: job.path, at: Date.now() });
});
metrics.on('sample', function recordSample(sample) {
  served += sample.path.length > 0 ? 1 : 0;
});

const server = http.createServer(function handleRequest(req, res) {
  // BUG (deliberate): one more 'close' listener on the shared emitter per request, never removed.
  shutdown.on('close', function releaseRequest() {
    req.destroy();
  });
  jobs.emit('job', { path: req.url });
  res.end(`ok ${served}`);
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port, pid: process.pid })}\n`);
});
