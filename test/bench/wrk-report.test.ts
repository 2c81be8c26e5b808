// The workers suite reads wrk's --latency report; a run whose tail latency reached whole seconds
// broke it (wrk pads "1.06s " to the column), and the whole bench run stopped.
import { describe, expect, it } from 'vitest';
import { parseWrkReport } from '../../bench/wrk-load.js';

const report = (p50: string, p99: string) => `Running 2s test @ http://127.0.0.1:34379/V1/Api.svc/TimeEntries(1)?$format=json
  1 threads and 128 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   111.14ms  236.97ms   1.34s    87.64%
    Req/Sec     7.30k     3.16k   12.57k    65.00%
  Latency Distribution
     50%   ${p50}
     75%   18.44ms
     90%  446.95ms
     99%   ${p99}
  14634 requests in 2.01s, 17.15MB read
  Non-2xx or 3xx responses: 3
Requests/sec:   7267.83
Transfer/sec:      8.52MB
`;

describe('wrk report', () => {
  it('reads a tail latency in whole seconds, which wrk pads with a space', () => {
    const result = parseWrkReport(report('13.56ms', ' 1.06s '));
    expect(result).toMatchObject({ requests: 14634, requestsPerSecond: 7267.83, p50Ms: 13.56, p99Ms: 1060, failures: 3 });
  });

  it('reads latencies in microseconds', () => {
    expect(parseWrkReport(report('812.00us', '2.50ms'))).toMatchObject({ p50Ms: 0.812, p99Ms: 2.5 });
  });
});
