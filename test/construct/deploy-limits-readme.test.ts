// The README's configurations, as people paste them (run against the library's sources): each
// synthesizes within what AWS and CloudFormation enforce at deploy, matches the resource schemas, and
// what it deploys fits. Needs `npm run build` first (the functions' bundles).
import { readmeConfigurations } from '../support/deploy-configurations';
import { deployLimitSuite } from '../support/deploy-limit-suite';

deployLimitSuite(readmeConfigurations());
