import { availableParallelism } from 'node:os';
import { closedLoop, sustained, webhookReceiver, withService } from './lib.ts';
const receiver = await webhookReceiver();
await withService({ poolThreads: availableParallelism(), webhookUrl: receiver.url }, async (service) => {
  await closedLoop(service.url, service.key, 4, 10, 3000);
  const run = await sustained(service, 16, receiver.received);
  console.log(run.completed, 'reports', ((run.completed / run.elapsedMs) * 1000).toFixed(1), '/s', run.cpu);
});
await receiver.close();
