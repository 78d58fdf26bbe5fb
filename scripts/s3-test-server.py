"""A real S3-API server on loopback for dbtool's tests: moto in server mode.

Starts moto on a free port with IAM authentication on (so a wrong secret is
refused as AWS refuses it), creates a user allowed s3:*, an administrator, a
role allowed s3:* and a bucket named `backups`, prints one JSON line
(endpoint, keys, role), then serves until its stdin closes. An optional
argument names a file that logs the requests of the slow link. Run by the tests with the Python of `make s3-deps`.
"""
import json
import os
import sys
import time

# The first 9 actions (the set-up below) are unauthenticated; every later
# request must be signed by a key moto knows.
os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "9"

import boto3  # noqa: E402
from moto.core.authorization import ActionAuthenticatorMixin  # noqa: E402
from moto.moto_server.werkzeug_app import DomainDispatcherApplication  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

# AWS takes AssumeRoleWithWebIdentity unsigned (the identity token is the
# proof), as the SDKs send it; moto's authentication expects every request
# signed and fails on it. Let that one action through unsigned, as AWS does.
authenticate = ActionAuthenticatorMixin._authenticate_and_authorize_action


def authenticate_as_aws(self, iam_request_cls, resource="*"):
    if "Authorization" not in self.headers and self._get_action() == "AssumeRoleWithWebIdentity":
        return
    return authenticate(self, iam_request_cls, resource)


ActionAuthenticatorMixin._authenticate_and_authorize_action = authenticate_as_aws

# A slow link for the tests that need a long upload without a large
# archive: every request for a key under `backups/slow/` takes 0.5 s more,
# and the requests under `backups/count/` (listings of it included) are
# logged without delay, to be counted (and see `backups/broken/` below);
# and is logged (time, access key, method, path and query) to the file named
# by the first argument.
request_log = sys.argv[1] if len(sys.argv) > 1 else None
dispatch = DomainDispatcherApplication.__call__


def dispatch_slowly(self, environ, start_response):
    path = environ.get("PATH_INFO", "")
    # Under `backups/count/` requests are logged, not slowed: the tests count them.
    if path.startswith("/backups/count/") or (path.rstrip("/") == "/backups" and "prefix=count" in environ.get("QUERY_STRING", "")):
        if request_log:
            with open(request_log, "a") as log:
                log.write(json.dumps({
                    "time": time.time(), "method": environ.get("REQUEST_METHOD", ""), "path": path,
                    "query": environ.get("QUERY_STRING", "")}) + "\n")
    if path.startswith("/backups/slow/"):
        if request_log:
            # Which key signed each request, and when: the tests check none was expired.
            credential = environ.get("HTTP_AUTHORIZATION", "").split("Credential=")[-1].split("/")[0]
            with open(request_log, "a") as log:
                log.write(json.dumps({
                    "time": time.time(), "key": credential, "method": environ.get("REQUEST_METHOD", ""),
                    "path": environ.get("PATH_INFO", ""), "query": environ.get("QUERY_STRING", "")}) + "\n")
        time.sleep(0.5)
    return dispatch(self, environ, start_response)


# A link that breaks: the first GET of each object under `backups/broken/`
# larger than 2 MiB sends half its body, then the connection drops (the
# client sees a transfer cut short, as on a flaky network). Later GETs of
# it are whole; each GET is logged, with its Range, when a log is given.
broken_once = set()


def dispatch_breaking(self, environ, start_response):
    path = environ.get("PATH_INFO", "")
    if not path.startswith("/backups/broken/") or environ.get("REQUEST_METHOD") != "GET":
        return dispatch_slowly(self, environ, start_response)
    if request_log:
        with open(request_log, "a") as log:
            log.write(json.dumps({"time": time.time(), "method": "GET", "path": path, "range": environ.get("HTTP_RANGE", "")}) + "\n")
    body = b"".join(dispatch_slowly(self, environ, start_response))
    if len(body) <= 2 << 20 or path in broken_once:
        return [body]
    broken_once.add(path)

    def cut():
        yield body[: len(body) // 2]
        raise ConnectionAbortedError("the test link broke")

    return cut()


DomainDispatcherApplication.__call__ = dispatch_breaking


def allow(actions):
    return json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": actions, "Resource": "*"}]})


server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
endpoint = f"http://{host}:{port}"
setup = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **setup)
# `backup` may use S3 and assume roles; `admin` may do anything (the tests'
# own set-up: users and keys that come and go); the role `replicator` may
# use S3 and assume roles (chains of roles), and anyone may assume it.
iam.create_user(UserName="backup")
key = iam.create_access_key(UserName="backup")["AccessKey"]
iam.put_user_policy(UserName="backup", PolicyName="backups", PolicyDocument=allow(["s3:*", "sts:AssumeRole"]))
iam.create_user(UserName="admin")
admin = iam.create_access_key(UserName="admin")["AccessKey"]
iam.put_user_policy(UserName="admin", PolicyName="all", PolicyDocument=allow("*"))
trust = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": ["sts:AssumeRole", "sts:AssumeRoleWithWebIdentity"]}]}
role = iam.create_role(RoleName="replicator", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
iam.put_role_policy(RoleName="replicator", PolicyName="s3", PolicyDocument=allow(["s3:*", "sts:AssumeRole"]))
s3 = boto3.client(
    "s3", endpoint_url=endpoint, region_name="us-east-1",
    aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"])
s3.create_bucket(Bucket="backups")
print(json.dumps({
    "endpoint": endpoint, "accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"],
    "adminAccessKeyId": admin["AccessKeyId"], "adminSecretAccessKey": admin["SecretAccessKey"], "roleArn": role["Arn"],
}), flush=True)
sys.stdin.read()
server.stop()
