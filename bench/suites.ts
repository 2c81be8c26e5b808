// Every suite `npm run bench` knows, in the order it runs them. Adding a suite: one module
// exporting a BenchSuite, one line here.
import type { BenchSuite } from './suite.js';
import { cliStart } from './cli-start.js';
import { workersBench } from './workers.js';
import { exportBench } from './export.js';
import { gatewayCache } from './gateway-cache.js';
import { gatewayPassthrough } from './gateway-passthrough.js';
import { gatewayRest } from './gateway-rest.js';
import { nginxBaseline } from './nginx.js';
import { odataCodecs } from './odata-codecs.js';
import { serviceBatch } from './service-batch.js';
import { serviceHttp } from './service-http.js';
import { webWeek } from './web-week.js';

export const suites: readonly BenchSuite[] = [odataCodecs, serviceHttp, serviceBatch, webWeek, gatewayCache, gatewayPassthrough, gatewayRest, nginxBaseline, workersBench, cliStart, exportBench];
