// The usage report's AWS estimate: each reply's measured usage at list prices, and the
// orchestrator's wait on the model at the construct's default memory.
import { AWS_LIST_PRICES, AWS_USAGE_PER_AGENT_REPLY, awsEstimateUsd, awsUsageCost } from '../../lib/contract/aws-cost-estimate';
import { PIPELINE_DEFAULTS } from '../../lib/contract/defaults';

it('prices each resource of a usage at its list price', () => {
  expect(awsUsageCost({ writeRequestUnits: 1e6, readRequestUnits: 0, sqsRequests: 0, lambdaRequests: 0, lambdaGbSeconds: 0 })).toBeCloseTo(0.625, 12);
  expect(awsUsageCost({ writeRequestUnits: 0, readRequestUnits: 1e6, sqsRequests: 1e6, lambdaRequests: 1e6, lambdaGbSeconds: 0 })).toBeCloseTo(0.125 + 0.5 + 0.2, 12);
  expect(awsUsageCost({ writeRequestUnits: 0, readRequestUnits: 0, sqsRequests: 0, lambdaRequests: 0, lambdaGbSeconds: 10 })).toBeCloseTo(10 * AWS_LIST_PRICES.lambdaArmGbSecond, 12);
});

it("adds the orchestrator's GB-seconds while it waited on the model to each reply's measured usage", () => {
  expect(awsEstimateUsd(0, 0)).toBe(0);
  expect(awsEstimateUsd(3, 0)).toBeCloseTo(3 * awsUsageCost(AWS_USAGE_PER_AGENT_REPLY), 12);
  const twoSecondsAtDefaultMemory = 2 * (PIPELINE_DEFAULTS.orchestratorMemorySize / 1024) * AWS_LIST_PRICES.lambdaArmGbSecond;
  expect(awsEstimateUsd(1, 2_000) - awsEstimateUsd(1, 0)).toBeCloseTo(twoSecondsAtDefaultMemory, 12);
});

it('puts a reply at a few thousandths of a cent, the order bench:cost measured', () => {
  const perReply = awsUsageCost(AWS_USAGE_PER_AGENT_REPLY);
  expect(perReply).toBeGreaterThan(0.00001);
  expect(perReply).toBeLessThan(0.0001);
});
