// The largest configurations the construct accepts (test/support/deploy-configurations.ts): each
// synthesizes within what AWS and CloudFormation enforce at deploy, matches the resource schemas, and
// what it deploys fits. Needs `npm run build` first (the functions' bundles).
import { MAXIMAL_CONFIGURATIONS } from '../support/deploy-configurations';
import { deployLimitSuite } from '../support/deploy-limit-suite';

/**
 * Configurations the construct accepts whose only deploy failure is a function environment over
 * Lambda's 4 KB, because large settings (prompts, stage settings, texts, MIME lists) still travel
 * in the environment. They pass once those settings move to the functions' settings documents:
 * then their `test.failing` tests fail, and this list goes.
 */
const AWAITING_SETTINGS_DOCUMENT = [
  "the README's first pipeline with the longest systemPrompt",
  'ten stages',
  'the longest fallbackText',
  'the four longest handoff texts',
  'maximal (Cloud API): every feature, ten stages, every text at its maximum, the longest names',
  'maximal (End User Messaging): every feature, ten stages, every text at its maximum, the longest names',
];

deployLimitSuite(MAXIMAL_CONFIGURATIONS, AWAITING_SETTINGS_DOCUMENT);
