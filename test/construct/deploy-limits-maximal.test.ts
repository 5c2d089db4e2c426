// The largest configurations the construct accepts (test/support/deploy-configurations.ts): each
// synthesizes within what AWS and CloudFormation enforce at deploy, matches the resource schemas, and
// what it deploys fits. Needs `npm run build` first (the functions' bundles).
import { MAXIMAL_CONFIGURATIONS } from '../support/deploy-configurations';
import { deployLimitSuite } from '../support/deploy-limit-suite';

deployLimitSuite(MAXIMAL_CONFIGURATIONS);
