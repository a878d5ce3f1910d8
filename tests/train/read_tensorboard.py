"""Reads a run's TensorBoard event files with TensorBoard's own code (the test of --tensorboard).

Every record goes through TensorBoard's record reader, which checks both CRC-32Cs, and its Event
protobuf; then TensorBoard's EventAccumulator gives the scalars as TensorBoard shows them (after
it drops what a resumed run superseded). Prints {"records": N, "scalars": {tag: [[step, value]]}}.
"""
import glob
import json
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.tensorflow_stub import errors
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import PyRecordReader_New

records = 0
for path in sorted(glob.glob(sys.argv[1] + "/events.out.tfevents.*")):
    reader = PyRecordReader_New(path)
    while True:
        try:
            reader.GetNext()
        except errors.OutOfRangeError:
            break
        event_pb2.Event.FromString(reader.record())  # raises on a malformed protobuf
        records += 1

accumulator = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
accumulator.Reload()
scalars = {tag: [[e.step, e.value] for e in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}
print(json.dumps({"records": records, "scalars": scalars}))
