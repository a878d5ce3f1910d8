#!/usr/bin/env python3
"""The tutorial's training script (seed tutorial 000, section 五, train.py) in plain PyTorch: the
peer of `dlready train` in bench/train.sh when the shared peer (train_seed.py) is not beside the
clone, so the benchmark runs on any clone and on a GPU machine that gets only the working tree.

As the tutorial writes it: SimpleNet (784-256-10), Adam lr 0.001, batch 64, shuffled DataLoader
with pin_memory, CrossEntropyLoss, torchvision's ToTensor + Normalize((0.1307,), (0.3081,)). Not
the tutorial's: the data come from local IDX files (never downloaded), the device/epochs/threads
are flags, and the run prints its timing and test accuracy in the shared peer's format.

usage: train_peer.py --data DIR [--dataset fashion|mnist] [--epochs 5] [--device auto|cpu|cuda]
DIR holds the four IDX files (plain or .gz), e.g. /usr/share/datasets/fashion-mnist.
"""
import argparse
import gzip
import os
import shutil
import tempfile
import time

import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

STEMS = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]


class SimpleNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def torchvision_root(data_dir, cls):
    """torchvision reads <root>/<Class>/raw/<plain IDX files>: build that view in a temp dir."""
    root = tempfile.mkdtemp()
    raw = os.path.join(root, cls.__name__, "raw")
    os.makedirs(raw)
    for stem in STEMS:
        src = os.path.join(data_dir, stem)
        if os.path.exists(src):
            os.symlink(os.path.abspath(src), os.path.join(raw, stem))
        else:
            with gzip.open(src + ".gz", "rb") as f, open(os.path.join(raw, stem), "wb") as g:
                shutil.copyfileobj(f, g)
    return root


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--dataset", default="fashion", choices=["fashion", "mnist"])
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--device", default="auto")
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    cls = datasets.FashionMNIST if a.dataset == "fashion" else datasets.MNIST
    root = torchvision_root(a.data, cls)
    t_start = time.time()
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_data = cls(root=root, train=True, download=False, transform=transform)
    test_data = cls(root=root, train=False, download=False, transform=transform)
    train_loader = DataLoader(train_data, batch_size=64, shuffle=True, pin_memory=True)
    test_loader = DataLoader(test_data, batch_size=1000)
    if a.device == "auto":
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(a.device)
    model = SimpleNet().to(device)
    optimizer = optim.Adam(model.parameters(), lr=0.001)
    criterion = nn.CrossEntropyLoss()

    t_train = time.time()
    for epoch in range(a.epochs):
        t_epoch = time.time()
        for data, target in train_loader:
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad()
            loss = criterion(model(data.view(-1, 784)), target)
            loss.backward()
            optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()
        print(f"Epoch {epoch + 1} completed in {time.time() - t_epoch:.3f}s", flush=True)
    train_s = time.time() - t_train

    correct = 0
    model.eval()
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            correct += (model(data.view(-1, 784)).argmax(1) == target).sum().item()
    print(f"device={device} train_seconds={train_s:.3f} total_seconds={time.time() - t_start:.3f} "
          f"test_accuracy={correct / len(test_data):.4f}")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
