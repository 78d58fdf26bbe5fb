"""A real S3-API server on loopback for dbtool's tests: moto in server mode.

Starts moto on a free port with IAM authentication on (so a wrong secret is
refused as AWS refuses it), creates a user allowed s3:* and a bucket named
`backups`, prints one JSON line (endpoint, access key, secret), then serves
until its stdin closes. Run by the tests with the Python of `make s3-deps`.
"""
import json
import os
import sys

# The first 4 actions (the set-up below) are unauthenticated; every later
# request must be signed by the user's key.
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "4"

import boto3  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
endpoint = f"http://{host}:{port}"
setup = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **setup)
iam.create_user(UserName="backup")
key = iam.create_access_key(UserName="backup")["AccessKey"]
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
iam.put_user_policy(UserName="backup", PolicyName="backups", PolicyDocument=json.dumps(policy))
s3 = boto3.client(
    "s3", endpoint_url=endpoint, region_name="us-east-1",
    aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
s3.create_bucket(Bucket="backups")
print(json.dumps({"endpoint": endpoint, "accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}), flush=True)
sys.stdin.read()
server.stop()
