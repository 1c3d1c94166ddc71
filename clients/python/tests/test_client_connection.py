"""The client facing a service it cannot reach (issue 78): a wrong port fails at once, naming the URL; a
service that went away after answering is retried, each call's first failure logged."""

import os
import socket
import sys
import unittest
import uuid
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tutor_reward import Client  # noqa: E402

URL = os.environ["TUTOR_REWARD_URL"]


def closed_port_url():
    """An address where nothing listens: a port the kernel just gave out, closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


class ConnectionTest(unittest.TestCase):
    def test_a_wrong_port_on_the_first_call_fails_at_once_naming_the_url(self):
        url = closed_port_url()
        client = Client(url, run_id="conn-" + uuid.uuid4().hex[:8], retries=6)
        with mock.patch("tutor_reward.client.time.sleep") as sleep:
            with self.assertRaises(ConnectionError) as caught:
                client.run()
        sleep.assert_not_called()
        self.assertIn(url, str(caught.exception))
        self.assertIn("patient=True", str(caught.exception))

    def test_a_patient_client_retries_a_service_not_up_yet_and_logs_the_first_failure(self):
        url = closed_port_url()
        client = Client(url, run_id="conn-" + uuid.uuid4().hex[:8], retries=2, patient=True)
        with mock.patch("tutor_reward.client.time.sleep") as sleep, self.assertLogs("tutor_reward", "WARNING") as logs:
            with self.assertRaises(OSError):
                client.run()
        self.assertEqual(sleep.call_count, 2, "its retries")
        self.assertEqual(len(logs.output), 1, "one warning per call, at its first failure")
        self.assertIn(f"GET {url}/runs/", logs.output[0])

    def test_once_the_service_has_answered_a_refused_connection_is_retried(self):
        client = Client(URL, run_id="conn-" + uuid.uuid4().hex[:8], retries=3)
        client.configure_run(samples_per_step=10)
        client.base_url = closed_port_url()  # the service went away mid-training
        with mock.patch("tutor_reward.client.time.sleep") as sleep, self.assertLogs("tutor_reward", "WARNING") as logs:
            with self.assertRaises(OSError):
                client.run()
        self.assertEqual(sleep.call_count, 3)
        self.assertIn("Connection refused", logs.output[0])


if __name__ == "__main__":
    unittest.main()
