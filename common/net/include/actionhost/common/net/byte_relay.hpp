// Relays bytes both ways between two connected Boost.Asio stream sockets (TCP, unix, any mix) until both
// directions have ended: what a proxy does once the protocol it carries is none of its business (an
// upgraded WebSocket, a forwarded port).
//
// Each direction reads into a buffer of its own and writes it all before it reads again, so a slow
// reader slows its writer instead of filling memory. The end of one side's stream is passed on as a
// shutdown of the other side's sending half (so half-closed protocols still work); an error on either
// side closes both sockets. Every operation runs on the sockets' executor (one io_context for both):
// the caller runs it, on one thread, with no thread of the relay's own.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace actionhost::common::net {

namespace detail {

template <class A, class B>
class ByteRelay : public std::enable_shared_from_this<ByteRelay<A, B>> {
  public:
    ByteRelay(A &a, B &b, std::function<void()> done) : a_(a), b_(b), done_(std::move(done)) {}

    void start(std::string a_to_b_first, std::string b_to_a_first) {
        first_[0] = std::move(a_to_b_first);
        first_[1] = std::move(b_to_a_first);
        begin(a_, b_, 0);
        begin(b_, a_, 1);
    }

  private:
    template <class From, class To>
    void begin(From &from, To &to, int dir) {
        if (first_[dir].empty()) return read(from, to, dir);
        auto self = this->shared_from_this();
        boost::asio::async_write(to, boost::asio::buffer(first_[dir]),
                                 [self, &from, &to, dir](const boost::system::error_code &ec, size_t) {
                                     if (ec) return self->fail(dir);
                                     self->read(from, to, dir);
                                 });
    }

    template <class From, class To>
    void read(From &from, To &to, int dir) {
        auto self = this->shared_from_this();
        from.async_read_some(boost::asio::buffer(buffers_[dir]), [self, &from, &to, dir](const boost::system::error_code &ec, size_t n) {
            if (ec == boost::asio::error::eof) {
                boost::system::error_code ignored;
                to.shutdown(To::shutdown_send, ignored);
                return self->finish();
            }
            if (ec) return self->fail(dir);
            boost::asio::async_write(to, boost::asio::buffer(self->buffers_[dir].data(), n),
                                     [self, &from, &to, dir](const boost::system::error_code &e, size_t) {
                                         if (e) return self->fail(dir);
                                         self->read(from, to, dir);
                                     });
        });
    }

    void fail(int) {
        boost::system::error_code ignored;
        a_.close(ignored);
        b_.close(ignored);
        finish();
    }

    void finish() {
        if (++ended_ == 2 && done_) done_();
    }

    A &a_;
    B &b_;
    std::function<void()> done_;
    std::string first_[2];
    std::array<char, 16384> buffers_[2];
    int ended_ = 0;
};

}  // namespace detail

// Starts relaying between `a` and `b` (both open, on one executor; they must outlive the relay's
// operations). `a_to_b_first` and `b_to_a_first` are bytes already read from one side, sent to the other
// before anything else. `done` runs (on the executor) once both directions have ended.
template <class A, class B>
void start_byte_relay(A &a, B &b, std::string a_to_b_first, std::string b_to_a_first, std::function<void()> done) {
    std::make_shared<detail::ByteRelay<A, B>>(a, b, std::move(done))->start(std::move(a_to_b_first), std::move(b_to_a_first));
}

}  // namespace actionhost::common::net
