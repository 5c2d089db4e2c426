import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * An Amazon CloudFront distribution in front of the operator console (`consoleFrontDoor`), where
 * an AWS WAF web ACL can filter requests before they reach the operator function. The function's
 * URL then takes only requests CloudFront signed (origin access control, `AWS_IAM` auth), and login
 * links point at the distribution.
 */
export interface ConsoleFrontDoor {
  /**
   * ARN of the AWS WAF web ACL that protects the console: scope CLOUDFRONT, so created in
   * us-east-1 (a rate-based rule per source address, your offices' IP sets, AWS managed rule groups).
   *
   * @default - no web ACL (a synth-time acknowledgement says so to cdk-nag)
   */
  readonly webAclArn?: string;

  /**
   * The console's own domain names (e.g. `console.example.com`); login links use the first.
   * Requires `certificate`. Point the names' DNS records at the distribution.
   *
   * @default - the distribution's `*.cloudfront.net` name
   */
  readonly domainNames?: string[];

  /**
   * The certificate for `domainNames`, in us-east-1. With it, viewers need TLS 1.2 or later.
   *
   * @default - CloudFront's default certificate
   */
  readonly certificate?: acm.ICertificate;

  /**
   * Bucket for CloudFront's standard access logs (one line per request, with the client address).
   *
   * @default - no access logs; the operator function logs every API call's outcome
   */
  readonly logBucket?: s3.IBucket;

  /**
   * Which edge locations serve the console.
   *
   * @default cloudfront.PriceClass.PRICE_CLASS_100
   */
  readonly priceClass?: cloudfront.PriceClass;
}
