// Stands in for `bowser` in the Lambda bundles (see bundle-lambdas.mjs): the AWS SDK's browser
// user-agent provider loads it on demand (`await import('bowser')`) to parse `navigator.userAgent`,
// which no function has. The CommonJS bundles never carried it (tree shaking dropped the provider);
// split into files, every dynamic import becomes a file of its own, so without this stand-in each
// function's asset would ship 38 KiB it can never load.
export function parse() {
  throw new Error('Browser user agents are not parsed in this function: remove the bowser alias in scripts/bundle-lambdas.mjs');
}

export default { parse };
