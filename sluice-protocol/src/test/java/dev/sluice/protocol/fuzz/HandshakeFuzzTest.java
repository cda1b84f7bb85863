package dev.sluice.protocol.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.protocol.NoLeaks;
import dev.sluice.protocol.handshake.AuthMoreData;
import dev.sluice.protocol.handshake.AuthSwitchRequest;
import dev.sluice.protocol.handshake.HandshakeResponse41;
import dev.sluice.protocol.handshake.HandshakeV10;
import dev.sluice.protocol.handshake.SslRequest;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connection-phase decoders fed arbitrary payloads: the greeting, the login (and SSL request),
 * auth switch and extra auth data. Each payload goes to every decoder, as a hostile client or a
 * confused backend could send any of them at any point.
 */
@ExtendWith(NoLeaks.class)
class HandshakeFuzzTest {
    private final AccountedAllocator allocator = new AccountedAllocator();
    private final DecoderContract contract = new DecoderContract(allocator);

    static Stream<byte[]> goldenPayloads() {
        return GoldenSeeds.payloads().stream();
    }

    @MethodSource("goldenPayloads")
    @FuzzTest(maxDuration = FuzzBudget.PER_TARGET)
    void everyConnectionPhaseDecoder(byte[] payload) {
        contract.roundTrip("HandshakeV10", payload, HandshakeV10::decode, HandshakeV10::encode);
        contract.roundTrip("HandshakeResponse41", payload, HandshakeResponse41::decode, HandshakeResponse41::encode);
        contract.roundTrip("SslRequest", payload, SslRequest::decode, SslRequest::encode);
        contract.roundTrip("AuthSwitchRequest", payload, AuthSwitchRequest::decode, AuthSwitchRequest::encode);
        contract.roundTrip("AuthMoreData", payload, AuthMoreData::decode, AuthMoreData::encode);
        contract.inPlace(payload, SslRequest::isSslRequest);
        contract.inPlace(payload, AuthMoreData::isAuthMoreData);
        allocator.assertAllReleased();
    }
}
