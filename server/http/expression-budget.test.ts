import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REQUEST_EXPRESSION_LIMITS, currentRequestBudget, evaluate } from '../../core/expressions/index.ts';
import { createTestServer, type TestServer } from '../test-support/test-server.ts';

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer({
    routes: (app) => {
      // Evaluates `n` loops of 9,000 steps in one request, after an await (as services do).
      app.post<{ Body: { n: number } }>(
        '/probe-budget',
        { config: { access: 'public' } },
        async (request) => {
          await Promise.resolve();
          let done = 0;
          try {
            for (; done < request.body.n; done += 1) {
              evaluate('{% for i in (1..9000) %}{% endfor %}', { data: 1 });
            }
          } catch {
            // the budget ran out
          }
          return { done, used: currentRequestBudget()?.used.steps ?? null };
        },
      );
    },
  });
});

afterEach(async () => {
  await server.dispose();
});

describe('the request expression budget', () => {
  it('is opened for every request and shared by everything the request evaluates', async () => {
    const call = async (n: number) =>
      (await server.app.inject({ method: 'POST', url: '/probe-budget', payload: { n } })).json<{
        done: number;
        used: number | null;
      }>();
    const small = await call(2);
    expect(small.done).toBe(2);
    expect(small.used).toBeGreaterThan(18_000);
    const large = await call(100);
    expect(large.done).toBe(Math.floor(REQUEST_EXPRESSION_LIMITS.steps / (small.used! / 2)));
    // A fresh budget for the next request: the first one's spending does not carry over.
    expect((await call(2)).done).toBe(2);
  });
});
