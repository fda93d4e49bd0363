// SPDX-License-Identifier: MIT
//
// One QtKeychain job, as a Qt application runs it: QtKeychain picks its backend by itself from
// the desktop (XDG_CURRENT_DESKTOP=KDE: KWallet through org.kde.kwalletd5; GNOME: libsecret).
// Usage: qtkeychain-job write|read|bwrite|bread|delete SERVICE KEY [VALUE]; binary values are
// given and printed in hex. Prints the value read; exits 1 with QtKeychain's error otherwise.
// Built by the test with g++ against Debian's QtKeychain 0.13 (qtkeychain-qt5-dev).

#include <QCoreApplication>
#include <QTextStream>
#include <qt5keychain/keychain.h>

int main(int argc, char **argv) {
  QCoreApplication app(argc, argv);
  app.setApplicationName("qtkeychain-job");
  if (argc < 4) return 2;
  const QString mode = argv[1], service = argv[2], key = argv[3];
  const QString value = argc > 4 ? QString::fromUtf8(argv[4]) : QString();
  QKeychain::Job *job;
  if (mode == "write" || mode == "bwrite") {
    auto *write = new QKeychain::WritePasswordJob(service);
    write->setKey(key);
    if (mode == "write") write->setTextData(value);
    else write->setBinaryData(QByteArray::fromHex(value.toLatin1()));
    job = write;
  } else if (mode == "read" || mode == "bread") {
    auto *read = new QKeychain::ReadPasswordJob(service);
    read->setKey(key);
    job = read;
  } else {
    auto *remove = new QKeychain::DeletePasswordJob(service);
    remove->setKey(key);
    job = remove;
  }
  job->setAutoDelete(false);
  job->setInsecureFallback(false);
  QObject::connect(job, &QKeychain::Job::finished, [&](QKeychain::Job *done) {
    QTextStream out(stdout), err(stderr);
    if (done->error()) {
      err << "error " << done->error() << ": " << done->errorString() << "\n";
      app.exit(1);
      return;
    }
    if (auto *read = qobject_cast<QKeychain::ReadPasswordJob *>(done)) {
      if (mode == "read") out << read->textData() << "\n";
      else out << read->binaryData().toHex() << "\n";
    }
    app.exit(0);
  });
  job->start();
  return app.exec();
}
