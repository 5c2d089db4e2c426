// The Region a command works in, settled before any AWS call: a missing or misspelled Region is
// said as such, instead of surfacing later as a host name that does not resolve.
import { partition } from '@aws-sdk/core/client';
import { loadConfig, NODE_REGION_CONFIG_FILE_OPTIONS, NODE_REGION_CONFIG_OPTIONS } from '@smithy/core/config';
import { CliFailure } from './cli-command';
import { EXIT_CODES } from './cli-failure';

/**
 * `--region`, else the Region the AWS SDK would use (AWS_REGION, then the profile's); refused when
 * there is none or it is not one of the AWS SDK's Regions.
 */
export async function resolveRegion(explicit: string | undefined): Promise<string> {
  let region = explicit;
  if (region === undefined) {
    try {
      region = await loadConfig(NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS)();
    } catch {
      throw new CliFailure(EXIT_CODES.region, "No AWS Region is set: pass --region <region> (the stack's Region) or set AWS_REGION, or give the AWS profile a region.");
    }
  }
  // The SDK's partition table describes every Region it knows; a name that only matches a partition's pattern gets no description.
  if (!('description' in partition(region))) {
    throw new CliFailure(EXIT_CODES.region, `'${region}' is not an AWS Region: check --region or AWS_REGION (for example us-east-1 or sa-east-1).`);
  }
  return region;
}
