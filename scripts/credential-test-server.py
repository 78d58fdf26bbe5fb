"""The credential endpoints of a container and of an EC2 instance, on loopback,
for dbtool's tests: the ECS/EKS container credentials protocol (GET with an
Authorization token) and IMDSv2 (PUT for a session token, then GETs with it),
as the AWS SDKs' documentation describes them.

Each answer is a new real access key of an IAM user of the S3 test server
(moto, with authentication on), created with its administrator's key and
deleted when it expires: a key used past its Expiration is refused, as AWS
refuses it.

    credential-test-server.py ENDPOINT ADMIN_KEY ADMIN_SECRET LIFETIME TOKEN LOG

LIFETIME is the keys' lifetime in seconds, TOKEN the Authorization the
container endpoint requires, LOG a file that gets one JSON line per request.
Prints one JSON line (the port), then serves until its stdin closes.
"""
import datetime
import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3

endpoint, admin_key, admin_secret, lifetime, container_token, log_path = sys.argv[1:7]
lifetime = float(lifetime)
iam = boto3.client(
    "iam", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=admin_key, aws_secret_access_key=admin_secret)
user = "rotated-" + uuid.uuid4().hex[:8]
iam.create_user(UserName=user)
iam.put_user_policy(UserName=user, PolicyName="s3", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
lock = threading.Lock()
imds_tokens = set()


def issue():
    """A new key of the user, deleted at its expiry."""
    with lock:
        keys = iam.list_access_keys(UserName=user)["AccessKeyMetadata"]
        if len(keys) >= 2:  # IAM's limit: drop the oldest (expired by now)
            oldest = min(keys, key=lambda k: k["CreateDate"])
            iam.delete_access_key(UserName=user, AccessKeyId=oldest["AccessKeyId"])
        key = iam.create_access_key(UserName=user)["AccessKey"]
    expiration = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=lifetime)

    def expire():
        with lock:
            try:
                iam.delete_access_key(UserName=user, AccessKeyId=key["AccessKeyId"])
            except Exception:
                pass
    timer = threading.Timer(lifetime, expire)
    timer.daemon = True
    timer.start()
    return {
        "Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": key["AccessKeyId"], "SecretAccessKey": key["SecretAccessKey"],
        "Expiration": expiration.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "LastUpdated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self, status, issued=None):
        with lock, open(log_path, "a") as log:
            log.write(json.dumps({
                "time": datetime.datetime.now(datetime.timezone.utc).timestamp(), "method": self.command, "path": self.path,
                "status": status, "issued": issued,
            }) + "\n")

    def answer(self, status, body, content_type="text/plain", issued=None):
        self.record(status, issued)
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        if self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            token = uuid.uuid4().hex
            imds_tokens.add(token)
            return self.answer(200, token)
        self.answer(400, "")

    def do_GET(self):
        if self.path.startswith("/latest/"):
            if self.headers.get("X-aws-ec2-metadata-token") not in imds_tokens:
                return self.answer(401, "")
            if self.path == "/latest/meta-data/iam/security-credentials/":
                return self.answer(200, "instance-role")
            if self.path == "/latest/meta-data/iam/security-credentials/instance-role":
                keys = issue()
                return self.answer(200, json.dumps(keys), "application/json", keys["AccessKeyId"])
            return self.answer(404, "")
        if self.path == "/container/credentials":
            if self.headers.get("Authorization") != container_token:
                return self.answer(403, json.dumps({"message": "bad token"}))
            keys = issue()
            return self.answer(200, json.dumps(keys), "application/json", keys["AccessKeyId"])
        self.answer(404, "")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"port": str(server.server_address[1])}), flush=True)
sys.stdin.read()
server.shutdown()
