package dev.sluice.server.net;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The I/O transport: native epoll where the platform has it (fewer copies and syscalls than
 * NIO on Linux), NIO otherwise. {@code -Dsluice.transport=nio} forces NIO for comparison.
 */
public record Transport(String name, IoHandlerFactory ioHandlerFactory,
        Class<? extends ServerChannel> serverChannelClass, Class<? extends Channel> channelClass) {

    public static Transport best() {
        boolean forceNio = "nio".equals(System.getProperty("sluice.transport"));
        if (!forceNio && Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                    EpollSocketChannel.class);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class,
                NioSocketChannel.class);
    }

    public EventLoopGroup newGroup(int threads, String threadName) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadName, true), ioHandlerFactory);
    }
}
