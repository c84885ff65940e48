import Foundation
import RxNetworkKit

// A minimal tour of RxCore; the HTTP walkthrough replaces it once the client lands.
let bag = DisposeBag()

Observable.create { observer in
    for value in 1...5 { observer.onNext(value) }
    observer.onCompleted()
    return Disposables.create()
}
.filter { $0 % 2 == 1 }
.map { "odd number \($0)" }
.subscribe(onNext: { print($0) }, onCompleted: { print("completed") })
.disposed(by: bag)

Observable<Int>.just(21)
    .asSingle()
    .subscribe(onSuccess: { print("single answered \($0 * 2)") })
    .disposed(by: bag)
