import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { ConsoleFrontDoor } from '../console-front-door';
import { accountUniqueName, stackQualifiedName } from './account-unique-names';
import { acknowledgeFinding } from './nag-acknowledgements';

const ORIGIN_ACCESS_CONTROL_NAME_MAX_LENGTH = 64;

/**
 * The console's CloudFront distribution: every request goes to the operator function's URL,
 * signed by origin access control (SigV4), uncached, with the viewer's cookies, query and headers
 * but its own Host (the function URL's). The function sets every security and cache header itself.
 */
export function buildConsoleDistribution(scope: Construct, functionUrl: lambda.IFunctionUrl, frontDoor: ConsoleFrontDoor): cloudfront.Distribution {
  // CloudFront names origin access controls once per account: the same app in two Regions needs two names.
  const originAccessControl = new cloudfront.FunctionUrlOriginAccessControl(scope, 'ConsoleOriginAccessControl', {
    originAccessControlName: accountUniqueName(scope, `${stackQualifiedName(scope)}-console`.replace(/[^A-Za-z0-9_-]/g, '-'), ORIGIN_ACCESS_CONTROL_NAME_MAX_LENGTH),
  });
  const distribution = new cloudfront.Distribution(scope, 'ConsoleDistribution', {
    comment: 'Operator console',
    defaultBehavior: {
      origin: origins.FunctionUrlOrigin.withOriginAccessControl(functionUrl, { originAccessControl }),
      viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
      allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
      cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
      originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
    },
    webAclId: frontDoor.webAclArn,
    domainNames: frontDoor.domainNames,
    certificate: frontDoor.certificate,
    ...(frontDoor.certificate ? { minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 } : {}),
    ...(frontDoor.logBucket ? { enableLogging: true, logBucket: frontDoor.logBucket } : {}),
    priceClass: frontDoor.priceClass ?? cloudfront.PriceClass.PRICE_CLASS_100,
    httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
  });
  acknowledgeFinding(distribution, {
    id: 'AwsSolutions-CFR1',
    reason: 'Operators may work from anywhere; restrict countries with a geographic match rule in the web ACL (consoleFrontDoor.webAclArn) if they do not.',
  });
  if (frontDoor.webAclArn === undefined) {
    acknowledgeFinding(distribution, { id: 'AwsSolutions-CFR2', reason: 'No consoleFrontDoor.webAclArn was given; pass a web ACL (scope CLOUDFRONT, in us-east-1) to filter requests before the operator function.' });
  }
  if (frontDoor.logBucket === undefined) {
    acknowledgeFinding(distribution, { id: 'AwsSolutions-CFR3', reason: "No consoleFrontDoor.logBucket was given; the operator function logs the outcome of every API call. Pass a bucket for CloudFront's access logs." });
  }
  if (frontDoor.certificate === undefined) {
    acknowledgeFinding(distribution, {
      id: 'AwsSolutions-CFR4',
      reason: 'The default *.cloudfront.net certificate takes no minimum TLS version; give consoleFrontDoor.domainNames and certificate to require TLS 1.2.',
    });
  }
  return distribution;
}
